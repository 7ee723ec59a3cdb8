/**
 * `npm run bench -- --scale [--projects 100,10000]`: the reconciler and the main reads with a
 * large tenant set. For each size it seeds a fresh stack (scripts/local/seed-dir.ts: projects
 * with sites, databases, buckets, connections, principals, deliveries and Activity history),
 * starts it without its cron and measures:
 * - one cron tick with nothing changed (median of three): wall time, workerd CPU and the
 *   subrequests the tick itself counts (its `reconciler.tick` log line);
 * - one tick after 100 changes (a connection removed in each of 100 projects, as a write would:
 *   the trigger marks each database), and how long until all 100 converged (no mark left, the
 *   new policy of each database delivered);
 * - p50 and p99 of the main reads of a project made through the API beside the seeded ones, with
 *   the metadata round trips (SQL-over-HTTP requests and WebSocket sessions) each takes.
 * Prints a table with the machine's load and writes bench-results/<timestamp>-scale.json.
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../local/net';
import { seedDataDir } from '../local/seed-dir';
import { type LocalStack, startLocalStack } from '../local/stack';
import { type BenchApi, createBenchAccount } from './api';
import { describeBundle, measureBundle } from './bundle-size';
import { readCpu } from './cpu';

/** One tick's cost. */
interface TickCost {
  wallMs: number;
  cpuMs: number;
  subrequests: number;
}

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
  changed: TickCost & { convergedSec: number | null };
  reads: ReadCost[];
  load: number[];
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** Fires the cron once and reads what the tick logged about itself. */
async function tick(stack: LocalStack, logFile: string): Promise<TickCost> {
  const before = readCpu().workerd ?? 0;
  const started = performance.now();
  // Miniflare's own call of the handler: its outcome, not an HTTP answer.
  const outcome = await stack.worker.runScheduled();
  if (outcome.outcome !== 'ok') throw new Error(`the tick failed: ${outcome.outcome}`);
  const wallMs = performance.now() - started;
  const cpuMs = (readCpu().workerd ?? 0) - before;
  const lines = readFileSync(logFile, 'utf8').split('\n');
  const line = lines.reverse().find((l) => l.includes('reconciler tick'));
  const json = line?.slice(line.indexOf('{'));
  const logged = json ? (JSON.parse(json) as { subrequests?: number }) : {};
  return { wallMs, cpuMs, subrequests: logged.subrequests ?? -1 };
}

/** 100 changes as writes make them: one connection removed in each of 100 seeded projects. */
async function change100(metadataUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: metadataUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ resource_id: string }>(`
      delete from connections c using projects p
       where p.id = c.project_id and p.slug like 'seed-%' and c.kind = 'database'
         and c.site_id = md5('s' || substr(p.slug, 6) || '-2')::uuid
         and substr(p.slug, 6)::int % (select greatest(1, count(*) / 100) from projects where slug like 'seed-%') = 0
       returning c.resource_id`);
    return rows.slice(0, 100).map((r) => r.resource_id);
  } finally {
    await client.end();
  }
}

/** Seconds until no mark is left and each changed database's new policy is delivered (null: not in 120 s). */
async function converged(
  stack: LocalStack,
  logFile: string,
  dbs: string[],
  since: Date,
): Promise<number | null> {
  const client = new pg.Client({ connectionString: stack.metadataUrl });
  await client.connect();
  try {
    for (let s = 0; s <= 120; s += 5) {
      const { rows } = await client.query<{ marks: number; delivered: number }>(
        `select (select count(*)::int from reconcile_marks) as marks,
                (select count(distinct target_id)::int from deliveries where kind = 'network_policy'
                  and status = 'delivered' and target_id = any($1::uuid[]) and created_at >= $2) as delivered`,
        [dbs, since],
      );
      if (rows[0]?.marks === 0 && rows[0]?.delivered === dbs.length)
        return (Date.now() - since.getTime()) / 1000;
      // The minute's cron, fired sooner: each tick takes its bounded batch.
      await tick(stack, logFile);
      await new Promise((r) => setTimeout(r, 5_000));
    }
    return null;
  } finally {
    await client.end();
  }
}

/** The main reads of a small project made through the API, measured one request at a time. */
async function reads(stack: LocalStack, api: BenchApi): Promise<ReadCost[]> {
  const project = await api.call<{ id: string }>('POST', '/api/v1/projects', { name: 'scale reads' });
  const base = `/api/v1/projects/${project.id}`;
  const site = await api.call<{ id: string }>('POST', `${base}/sites`, { slug: 'web' });
  await api.call('POST', `${base}/sites`, { slug: 'admin' });
  await api.call('POST', `${base}/buckets`, { name: 'files' });
  const routes: Array<[string, string]> = [
    ['GET /projects', '/api/v1/projects'],
    ['GET /projects/{id}/sites', `${base}/sites`],
    ['GET /projects/{id}/sites/{siteId}/connections', `${base}/sites/${site.id}/connections`],
    ['GET /projects/{id}/buckets', `${base}/buckets`],
    ['GET /projects/{id}/activity', `${base}/activity`],
  ];
  const out: ReadCost[] = [];
  for (const [route, path] of routes) {
    for (let i = 0; i < 20; i++) await api.call('GET', path);
    const times: number[] = [];
    const trips = stack.roundTrips();
    const n = 200;
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await api.call('GET', path);
      times.push(performance.now() - t);
    }
    const sorted = times.sort((a, b) => a - b);
    out.push({
      route,
      p50Ms: pct(sorted, 0.5),
      p99Ms: pct(sorted, 0.99),
      roundTrips: (stack.roundTrips() - trips) / n,
    });
  }
  return out;
}

/** Seeds, starts and measures one size. */
async function measureSize(root: string, outDir: string, projects: number): Promise<ScaleResult> {
  const dataDir = await mkdtemp(join(root, 'tether-bench-scale-'));
  try {
    const seeding = Date.now();
    console.log(`seeding ${projects} projects…`);
    await seedDataDir(dataDir, projects, Math.min(20, projects), (l) => console.log(`  [seed] ${l}`));
    const seedSec = (Date.now() - seeding) / 1000;
    const logFile = join(dataDir, 'worker.log');
    const stack = await startLocalStack({
      port: await freePort(),
      dataDir,
      cron: false,
      workerLogFile: logFile,
    });
    try {
      const api = await createBenchAccount(stack.baseUrl, stack.operatorToken);
      // The first tick after a start warms the isolate and the sweeps' cursors.
      await tick(stack, logFile);
      const idleRuns = [await tick(stack, logFile), await tick(stack, logFile), await tick(stack, logFile)];
      const idle = idleRuns.sort((a, b) => a.wallMs - b.wallMs)[1] as TickCost;
      const since = new Date();
      const dbs = await change100(stack.metadataUrl);
      const changedTick = await tick(stack, logFile);
      const convergedSec = await converged(stack, logFile, dbs, since);
      return {
        projects,
        seedSec,
        idle,
        changed: { ...changedTick, convergedSec },
        reads: await reads(stack, api),
        load: loadavg(),
      };
    } finally {
      await stack.stop();
      // The Worker's console, kept beside the results: the first place to look when a row fails.
      await copyFile(logFile, join(outDir, `scale-${projects}.worker.log`)).catch(() => undefined);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

/** Runs the scale bench for each size, prints the table and writes the results. */
export async function runScaleBench(root: string, outDir: string, sizes: number[]): Promise<void> {
  const results: ScaleResult[] = [];
  for (const size of sizes) results.push(await measureSize(root, outDir, size));
  const bundle = await measureBundle().catch((err: unknown) => ({ error: String(err) }));
  const lines = [
    '| projects | tick, no change: wall / workerd CPU / subrequests | tick, 100 changes: wall / CPU / subrequests | 100 changes converged | load (1 min) |',
    '|---:|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.projects} | ${ms(r.idle.wallMs)} / ${ms(r.idle.cpuMs)} / ${r.idle.subrequests} | ${ms(r.changed.wallMs)} / ${ms(r.changed.cpuMs)} / ${r.changed.subrequests} | ${r.changed.convergedSec === null ? 'not in 120 s' : `${r.changed.convergedSec.toFixed(0)} s`} | ${r.load[0]?.toFixed(1)} |`,
    ),
    '',
    `| read (one at a time) | ${results.map((r) => `p50 / p99 at ${r.projects}`).join(' | ')} | metadata round trips |`,
    `|---|${results.map(() => '---:').join('|')}|---:|`,
    ...(results[0]?.reads ?? []).map(
      (read, i) =>
        `| ${read.route} | ${results.map((r) => `${ms(r.reads[i]?.p50Ms ?? 0)} / ${ms(r.reads[i]?.p99Ms ?? 0)}`).join(' | ')} | ${results.map((r) => r.reads[i]?.roundTrips.toFixed(1)).join(' / ')} |`,
    ),
  ];
  lines.push('', ...describeBundle(bundle));
  console.log(`\n${lines.join('\n')}\n`);
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-scale.json`);
  await writeFile(file, `${JSON.stringify({ cpus: cpus().length, results, bundle }, null, 2)}\n`);
  console.log(`results written to ${file}`);
}
