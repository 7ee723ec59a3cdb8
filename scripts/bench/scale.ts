/**
 * `npm run bench -- --scale [--projects 100,10000]`: the reconciler and the main reads with a
 * large tenant set. Each size gets a freshly seeded stack (scripts/local/seed-dir.ts: projects
 * with sites, databases, buckets, connections, principals, deliveries and Activity history),
 * started without its cron; the stacks then run side by side and every measurement alternates
 * between them, so the other work on a shared machine falls on each size alike:
 * - one cron tick with nothing changed (median of nine, workerd quiet before each): wall time,
 *   the scheduled handler's own workerd CPU and the subrequests it counts (its `reconciler.tick`
 *   line), and apart from it the queue consumer's CPU working the sweep slices it sent
 *   (scale-tick.ts);
 * - one tick after 100 changes (a connection removed in each of 100 projects, as a write would:
 *   the trigger marks each database), and how long until all 100 converged (no mark left, the
 *   new policy of each database delivered);
 * - p50 and p99 of the main reads of a project made through the API beside the seeded ones
 *   (400 each, in alternating slices of 50 after 40 to warm up), with the metadata round trips
 *   (SQL-over-HTTP requests and WebSocket sessions) each takes.
 * Prints a table with the machine's load and writes bench-results/<timestamp>-scale.json.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../local/net';
import { seedDataDir } from '../local/seed-dir';
import { startLocalStack } from '../local/stack';
import { describeBundle, measureBundle } from './bundle-size';
import { pidsNamed } from './process-cpu';
import { change100, converged, type MeasuredStack, medianTick, type TickCost, tick } from './scale-tick';
import { type BenchApi, createBenchAccount } from './setup-client';

/** One read's latency and round trips. */
interface ReadCost {
  route: string;
  p50Ms: number;
  p99Ms: number;
  roundTrips: number;
}

/** What one size measured. */
export interface ScaleResult {
  projects: number;
  seedSec: number;
  idle: TickCost;
  idleRuns: TickCost[];
  changed: TickCost & { convergedSec: number | null };
  reads: ReadCost[];
  /** The machine's load average (1, 5, 15 min) when the size's measurements ended. */
  load: number[];
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** The main reads of a small project made through one stack's API. */
async function readPaths(api: BenchApi): Promise<Array<[string, string]>> {
  const project = await api.call<{ id: string }>('POST', '/api/v1/projects', { name: 'scale reads' });
  const base = `/api/v1/projects/${project.id}`;
  const site = await api.call<{ id: string }>('POST', `${base}/sites`, { slug: 'web' });
  await api.call('POST', `${base}/sites`, { slug: 'admin' });
  await api.call('POST', `${base}/buckets`, { name: 'files' });
  return [
    ['GET /projects', '/api/v1/projects'],
    ['GET /projects/{id}/sites', `${base}/sites`],
    ['GET /projects/{id}/sites/{siteId}/connections', `${base}/sites/${site.id}/connections`],
    ['GET /projects/{id}/buckets', `${base}/buckets`],
    ['GET /projects/{id}/activity', `${base}/activity`],
  ];
}

const READ_SLICES = 8;
const READ_SLICE = 50;
const READ_WARMUP = 40;

/**
 * Each main read on every stack, one request at a time, in alternating slices (stack A's 50,
 * stack B's 50, ... eight times), so a busy stretch of the machine falls on both sizes alike.
 */
async function reads(stacks: readonly MeasuredStack[], apis: readonly BenchApi[]): Promise<ReadCost[][]> {
  const paths = await Promise.all(apis.map(readPaths));
  const out: ReadCost[][] = stacks.map(() => []);
  for (let r = 0; r < (paths[0]?.length ?? 0); r++) {
    const times: number[][] = stacks.map(() => []);
    const trips: number[] = stacks.map(() => 0);
    for (const [i, api] of apis.entries()) {
      const path = paths[i]?.[r]?.[1] as string;
      for (let k = 0; k < READ_WARMUP; k++) await api.call('GET', path);
    }
    for (let slice = 0; slice < READ_SLICES; slice++) {
      for (const [i, api] of apis.entries()) {
        const path = paths[i]?.[r]?.[1] as string;
        const before = stacks[i]?.stack.roundTrips() ?? 0;
        for (let k = 0; k < READ_SLICE; k++) {
          const t = performance.now();
          await api.call('GET', path);
          times[i]?.push(performance.now() - t);
        }
        trips[i] = (trips[i] ?? 0) + (stacks[i]?.stack.roundTrips() ?? 0) - before;
      }
    }
    for (const [i, t] of times.entries()) {
      const sorted = t.sort((a, b) => a - b);
      out[i]?.push({
        route: paths[i]?.[r]?.[0] as string,
        p50Ms: pct(sorted, 0.5),
        p99Ms: pct(sorted, 0.99),
        roundTrips: (trips[i] ?? 0) / sorted.length,
      });
    }
  }
  return out;
}

/** A stack of one size, with its data folder and how long its seed took. */
type SizedStack = MeasuredStack & { dataDir: string; seedSec: number };

/** Seeds a fresh data folder for `projects` and starts its stack; returns it with its workerd's pid. */
async function startSized(root: string, projects: number): Promise<SizedStack> {
  const dataDir = await mkdtemp(join(root, 'tether-bench-scale-'));
  const seeding = Date.now();
  console.log(`seeding ${projects} projects…`);
  await seedDataDir(dataDir, projects, Math.min(20, projects), (l) => console.log(`  [seed] ${l}`));
  console.log(`  seeded in ${((Date.now() - seeding) / 1000).toFixed(0)} s`);
  const logFile = join(dataDir, 'worker.log');
  const before = pidsNamed('workerd');
  const stack = await startLocalStack({
    port: await freePort(),
    dataDir,
    cron: false,
    workerLogFile: logFile,
  });
  const fresh = [...pidsNamed('workerd')].filter((p) => !before.has(p));
  if (fresh.length !== 1) {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`expected one new workerd for the stack of ${projects}, found ${fresh.length}`);
  }
  const seedSec = (Date.now() - seeding) / 1000;
  return { projects, stack, workerd: fresh[0] as number, logFile, dataDir, seedSec };
}

const IDLE_TICKS = 9;

/** Every measurement of every size, alternating between the stacks. */
async function measureAll(stacks: readonly SizedStack[]): Promise<ScaleResult[]> {
  const apis = await Promise.all(
    stacks.map((s) => createBenchAccount(s.stack.baseUrl, s.stack.operatorToken)),
  );
  // The first tick after a start warms the isolate and the sweeps' cursors.
  for (const s of stacks) await tick(s);
  const idleRuns: TickCost[][] = stacks.map(() => []);
  for (let i = 0; i < IDLE_TICKS; i++)
    for (const [k, s] of stacks.entries()) idleRuns[k]?.push(await tick(s));
  const changed: Array<TickCost & { convergedSec: number | null }> = [];
  for (const s of stacks) {
    const since = new Date();
    const dbs = await change100(s.stack.metadataUrl);
    const cost = await tick(s);
    changed.push({ ...cost, convergedSec: await converged(s, dbs, since) });
  }
  const measuredReads = await reads(stacks, apis);
  return stacks.map((s, k) => ({
    projects: s.projects,
    seedSec: s.seedSec,
    idle: medianTick(idleRuns[k] ?? []),
    idleRuns: idleRuns[k] ?? [],
    changed: changed[k] as TickCost & { convergedSec: number | null },
    reads: measuredReads[k] ?? [],
    load: loadavg(),
  }));
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
const x = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : '-');

/** The results as Markdown tables: the ticks, then the reads (the largest size against the smallest). */
function renderScale(results: readonly ScaleResult[]): string[] {
  const first = results[0];
  const last = results[results.length - 1];
  const lines = [
    '| projects | tick, nothing changed: wall / workerd CPU / subrequests | queue consumer on its slice messages: workerd CPU (per message) | tick after 100 changes: wall / CPU / subrequests | 100 changes converged | load (1 min) |',
    '|---:|---|---:|---|---|---:|',
    ...results.map(
      (r) =>
        `| ${r.projects} | ${ms(r.idle.wallMs)} / ${ms(r.idle.cpuMs)} / ${r.idle.subrequests} | ${ms(r.idle.consumerCpuMs)} for ${r.idle.messages} (${ms(r.idle.consumerCpuMs / Math.max(1, r.idle.messages))}) | ${ms(r.changed.wallMs)} / ${ms(r.changed.cpuMs)} / ${r.changed.subrequests} | ${r.changed.convergedSec === null ? 'not in 120 s' : `${r.changed.convergedSec.toFixed(0)} s`} | ${r.load[0]?.toFixed(1)} |`,
    ),
  ];
  if (first && last && first !== last)
    lines.push(
      '',
      `Idle tick at ${last.projects} against ${first.projects}: wall ${x(last.idle.wallMs, first.idle.wallMs)}, CPU ${x(last.idle.cpuMs, first.idle.cpuMs)} (target 1.5x); most subrequests in any tick: ${Math.max(...results.flatMap((r) => [r.idle.subrequests, r.changed.subrequests]))} (limit 500).`,
    );
  lines.push(
    '',
    `| read (one at a time) | ${results.map((r) => `p50 / p99 at ${r.projects}`).join(' | ')} | p50 ratio | metadata round trips |`,
    `|---|${results.map(() => '---:').join('|')}|---:|---:|`,
    ...(first?.reads ?? []).map(
      (read, i) =>
        `| ${read.route} | ${results.map((r) => `${(r.reads[i]?.p50Ms ?? 0).toFixed(1)} / ${ms(r.reads[i]?.p99Ms ?? 0)}`).join(' | ')} | ${x(last?.reads[i]?.p50Ms ?? 0, read.p50Ms)} | ${results.map((r) => r.reads[i]?.roundTrips.toFixed(1)).join(' / ')} |`,
    ),
  );
  return lines;
}

/** Runs the scale bench for each size, prints the table and writes the results. */
export async function runScaleBench(root: string, outDir: string, sizes: number[]): Promise<void> {
  const stacks: SizedStack[] = [];
  let results: ScaleResult[];
  try {
    for (const size of sizes) stacks.push(await startSized(root, size));
    results = await measureAll(stacks);
  } finally {
    for (const s of stacks) {
      await s.stack.stop();
      // The Worker's console, kept beside the results: the first place to look when a row fails.
      await copyFile(s.logFile, join(outDir, `scale-${s.projects}.worker.log`)).catch(() => undefined);
      await rm(s.dataDir, { recursive: true, force: true });
    }
  }
  const bundle = await measureBundle().catch((err: unknown) => ({ error: String(err) }));
  const lines = renderScale(results);
  lines.push('', ...describeBundle(bundle));
  console.log(`\n${lines.join('\n')}\n`);
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-scale.json`);
  await writeFile(file, `${JSON.stringify({ cpus: cpus().length, results, bundle }, null, 2)}\n`);
  console.log(`results written to ${file}`);
}
