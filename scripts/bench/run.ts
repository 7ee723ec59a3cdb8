/**
 * `npm run bench`: starts a fresh local stack, measures the floor (GET /healthz) and every
 * scenario from a separate load-generator process, prints a table and writes
 * bench-results/<timestamp>.json. Options: --only <text> (scenarios whose name contains it;
 * the floor always runs), --duration <s> (default 10), --connections <n> (default 10), --rtt
 * <ms> (the delay the SQL-over-HTTP stand-in adds to each request in the latency runs, 20).
 * `--scale [--projects 100,10000]` runs the scale bench instead (scale.ts).
 */
import { execFileSync } from 'node:child_process';
import { access, constants, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../local/net';
import { startLocalStack } from '../local/stack';
import { describeBundle, measureBundle } from './bundle-size';
import { cpuPerRequest, readCpu } from './cpu';
import { startFakeGoogle } from './fake-google';
import { runLoad } from './load';
import { simulateRegionalCodes } from './regional-codes';
import { runScenario } from './runner';
import { runScaleBench } from './scale';
import { scenarios } from './scenarios';
import { floorScenario } from './scenarios/floor';
import { createBenchAccount } from './setup-client';
import { renderTable } from './table';
import type { BenchContext, ResultRow } from './types';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_IP_HEADER = 'x-bench-client-ip';
/**
 * The reads scenario lists a project of 150 databases, and the PUT scenario connects 100 at once:
 * the bench's deployment lets one project hold them (MAX_DATABASES_PER_PROJECT, 10 by default).
 */
const DATABASES_PER_PROJECT = '200';
/** The production Worker plus the ceiling routes (bench-entry.ts). */
const BENCH_ENTRY = fileURLToPath(new URL('./bench-entry.ts', import.meta.url));

function settingsFromArgs(): {
  only?: string;
  durationSec: number;
  connections: number;
  warmupSec: number;
  rttMs: number;
  scale?: number[];
} {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      rtt: { type: 'string', default: '20' },
      scale: { type: 'boolean', default: false },
      projects: { type: 'string', default: '100,10000' },
    },
  });
  const scale = values.scale ? values.projects.split(',').map(Number) : undefined;
  if (scale?.some((n) => !(Number.isInteger(n) && n >= 100)))
    throw new Error('--projects: sizes of 100 or more, separated by commas');
  const rttMs = Number(values.rtt);
  if (!(rttMs >= 0 && rttMs <= 200)) throw new Error('--rtt must be 0 to 200 milliseconds');
  const durationSec = Number(values.duration);
  const connections = Number(values.connections);
  if (!(durationSec > 0 && durationSec <= 60)) throw new Error('--duration must be 1 to 60 seconds');
  if (!(Number.isInteger(connections) && connections > 0 && connections <= 100)) {
    throw new Error('--connections must be an integer from 1 to 100');
  }
  return {
    only: values.only,
    durationSec,
    connections,
    warmupSec: Math.min(2, durationSec / 5),
    rttMs,
    ...(scale ? { scale } : {}),
  };
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

async function openApiRoutes(baseUrl: string): Promise<Set<string>> {
  const res = await fetch(`${baseUrl}/api/v1/openapi.json`);
  if (!res.ok) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as { paths?: Record<string, Record<string, unknown>> };
  const routes = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    // The document lists full paths (/api/v1/...); accept relative ones too.
    const full = path.startsWith('/api/v1') ? path : `/api/v1${path}`;
    for (const method of Object.keys(ops)) routes.add(`${method.toUpperCase()} ${full}`);
  }
  return routes;
}

/**
 * Where the run keeps its state: tmpfs (/dev/shm) when the machine has it. On a VM disk every
 * Durable Object commit and every Postgres commit waits for fsync, which measures the disk, not
 * Tether (production Durable Object storage and Neon do not fsync on the request path), and the
 * exchange's peer keeps its codes in memory. Both sides of every comparison share this choice.
 */
async function stateRoot(): Promise<string> {
  try {
    await access('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

async function main(): Promise<void> {
  const settings = settingsFromArgs();
  const started = new Date();
  const outDir = join(ROOT, 'bench-results');
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  await mkdir(outDir, { recursive: true });
  if (settings.scale) return runScaleBench(await stateRoot(), outDir, settings.scale);
  const dataDir = await mkdtemp(join(await stateRoot(), 'tether-bench-'));
  const google = await startFakeGoogle();
  const port = await freePort();
  console.log(`starting the local stack on 127.0.0.1:${port} (data in ${dataDir})…`);
  const stack = await startLocalStack({
    port,
    dataDir,
    cron: false,
    entry: BENCH_ENTRY,
    env: { ...google.env, CLIENT_IP_HEADER, MAX_DATABASES_PER_PROJECT: DATABASES_PER_PROJECT },
    workerLogFile: join(dataDir, 'worker.log'),
  });
  const rows: ResultRow[] = [];
  let bundle: Awaited<ReturnType<typeof measureBundle>> | { error: string };
  try {
    const ctx: BenchContext = {
      stack,
      api: await createBenchAccount(stack.baseUrl, stack.operatorToken),
      settings,
      google,
      clientIpHeader: CLIENT_IP_HEADER,
      routes: await openApiRoutes(stack.baseUrl),
      load: async ({ peerPid, ...spec }) => {
        const before = readCpu(peerPid);
        const m = await runLoad({ url: stack.baseUrl, timeoutSec: 10, ...spec });
        return { ...m, cpu: cpuPerRequest(before, readCpu(peerPid), m.requests) };
      },
      setSqlRtt: (ms) => stack.setSqlRtt(ms),
      rttMs: settings.rttMs,
    };
    console.log(`worker (workerd via Miniflare) at ${stack.baseUrl}; load from a child process`);
    const floorRows = await runScenario(ctx, floorScenario);
    rows.push(...floorRows);
    ctx.floor = floorRows[0]?.measurement;
    for (const scenario of scenarios) {
      if (settings.only && !scenario.name.includes(settings.only)) continue;
      console.log(`scenario: ${scenario.name}…`);
      rows.push(...(await runScenario(ctx, scenario)));
    }
    // The regional codes' simulation needs no stack; it is deterministic and takes a second.
    if (!settings.only || 'regional codes'.includes(settings.only))
      rows.push(...(await simulateRegionalCodes()));
    bundle = await measureBundle().catch((err: unknown) => ({ error: String(err) }));
  } finally {
    await stack.stop();
    await google.stop();
    // The Worker's console, kept beside the results: the first place to look when a row fails.
    await copyFile(join(dataDir, 'worker.log'), join(outDir, `${stamp}.worker.log`)).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }

  console.log(`\n${renderTable(rows)}\n`);
  for (const line of describeBundle(bundle)) console.log(line);

  const file = join(outDir, `${stamp}.json`);
  const meta = {
    started: started.toISOString(),
    commit: gitCommit(),
    node: process.version,
    cpus: cpus().length,
  };
  await writeFile(file, `${JSON.stringify({ ...meta, settings, rows, bundle }, null, 2)}\n`);
  console.log(`results written to ${file}`);
  const failed = rows.filter((r) => r.checks.some((c) => !c.pass)).length;
  if (failed > 0) console.log(`${failed} row(s) missed a target`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(1);
  },
);
