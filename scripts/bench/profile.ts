/**
 * `npx tsx scripts/bench/profile.ts [exchange|exchange-call|redeem|sql|connections|connect]`: a CPU profile of workerd while it
 * serves one kind of request, taken through its V8 inspector (Profiler domain), to see where
 * a request's CPU goes beyond its unavoidable step. Starts the bench's stack, drives the
 * requests from a load-generator process, prints the functions with the most self time and
 * writes the whole profile to bench-results/<kind>.cpuprofile (open it in Chrome DevTools),
 * beside the Worker's modules it points into (bench-results/<kind>.bundle/).
 * A tool for the bench engineer, not a measurement: the profiler itself costs CPU.
 *
 * Each sample is charged the time since the previous one, capped at MAX_SAMPLE_MS: when the
 * shared machine deschedules workerd, the next sample carries the whole gap (one sample of an
 * exchange once carried 816 ms, half the run, onto a header read), so uncapped times name
 * whatever happened to run after a preemption rather than what costs CPU.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort } from '../local/net';
import { startLocalStack } from '../local/stack';
import { startFakeGoogle } from './fake-google';
import { runLoad } from './load';
import { connectionsPath, createDatabases, createSites } from './scenarios/fixtures';
import { createAuthApps, mintExchangeRequests } from './scenarios/oauth-fixtures';
import { setupConnections } from './scenarios/reads';
import { createBenchAccount, createProject } from './setup-client';
import type { BenchContext, LoadRequest } from './types';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BENCH_ENTRY = fileURLToPath(new URL('./bench-entry.ts', import.meta.url));
const CLIENT_IP_HEADER = 'x-bench-client-ip';
/** Sites connected by the connect kind: half warm the JIT, half are profiled. */
const CONNECTS = 160;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function inspector(url: string) {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: unknown };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.error ? { error: msg.error } : msg.result);
  });
  return {
    send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => waiting.set(id, resolve as (r: unknown) => void));
    },
    close: () => ws.close(),
  };
}

/** Longest time one sample may be charged: a few sampling intervals (50 us each). */
const MAX_SAMPLE_MS = 0.5;
const sampleMs = (profile: CpuProfile, i: number): number =>
  Math.min((profile.timeDeltas[i] ?? 0) / 1000, MAX_SAMPLE_MS);

const frameName = (f: ProfileNode['callFrame']): string =>
  `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-1)[0]}:${f.lineNumber + 1}`;

/** Total time per function (itself and what it called; counted once per sample), largest first. */
function totalTimes(profile: CpuProfile): Array<{ name: string; ms: number }> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byName = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node) seen.add(frameName(node.callFrame));
    }
    for (const name of seen) byName.set(name, (byName.get(name) ?? 0) + sampleMs(profile, i));
  });
  return [...byName.entries()].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}

/** Self time per function (name, file tail and line), largest first. */
function selfTimes(profile: CpuProfile): Array<{ name: string; ms: number; share: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    ms.set(id, (ms.get(id) ?? 0) + sampleMs(profile, i));
  });
  const total = [...ms.values()].reduce((a, b) => a + b, 0);
  const byName = new Map<string, number>();
  for (const [id, t] of ms) {
    const f = byId.get(id)?.callFrame;
    if (!f) continue;
    const key = frameName(f);
    byName.set(key, (byName.get(key) ?? 0) + t);
  }
  return [...byName.entries()]
    .map(([name, t]) => ({ name, ms: t, share: t / total }))
    .sort((a, b) => b.ms - a.ms);
}

async function main(): Promise<void> {
  const kind = process.argv[2] ?? 'exchange';
  const dataDir = await mkdtemp('/dev/shm/tether-profile-');
  const google = await startFakeGoogle();
  const port = await freePort();
  const inspectorPort = await freePort();
  const stack = await startLocalStack({
    port,
    dataDir,
    cron: false,
    entry: BENCH_ENTRY,
    env: { ...google.env, CLIENT_IP_HEADER },
    workerLogFile: join(dataDir, 'worker.log'),
    inspectorPort,
  });
  try {
    const api = await createBenchAccount(stack.baseUrl, stack.operatorToken);
    const ctx = { stack, api, google, clientIpHeader: CLIENT_IP_HEADER } as unknown as BenchContext;
    let requests: LoadRequest[];
    if (kind === 'exchange' || kind === 'exchange-call') {
      const apps = await createAuthApps(api, 8, 'profile');
      requests = await mintExchangeRequests(ctx, apps, 4000, 499, 60_000);
      // The exchange's object call alone, on the same kind of codes (bench-entry.ts).
      if (kind === 'exchange-call')
        requests = requests.map((r) => ({ ...r, path: `/__bench/exchange-call/${r.path.split('/')[2]}` }));
    } else if (kind === 'redeem') {
      requests = Array.from({ length: 4000 }, (_, i) => ({
        method: 'POST',
        path: `/__bench/redeem/bench-ceiling?n=${i}`,
      }));
    } else if (kind === 'connections') {
      // The read of the CPU target: a site's 50 connections among 200 services.
      const { path } = await setupConnections(ctx);
      requests = Array.from({ length: 4000 }, () => ({
        method: 'GET',
        path,
        headers: { authorization: api.authorization },
      }));
    } else if (kind === 'connect') {
      // POST connect of a new site to one database, one at a time (as the bench's connect row).
      const projectId = await createProject(api, 'profile connect');
      const [databaseId] = await createDatabases(api, projectId, 1);
      const sites = await createSites(api, projectId, CONNECTS, 'connect');
      const body = JSON.stringify({ kind: 'database', resource_id: databaseId, level: 'connect' });
      requests = sites.map((id) => ({
        method: 'POST',
        path: connectionsPath(projectId, id),
        headers: { authorization: api.authorization, 'content-type': 'application/json' },
        body,
      }));
    } else {
      requests = Array.from({ length: 4000 }, () => ({ method: 'GET', path: '/__bench/sql' }));
    }
    const half = Math.floor(requests.length / 2);
    const load = (reqs: LoadRequest[]) =>
      runLoad({
        url: stack.baseUrl,
        connections: kind === 'connect' ? 1 : 10,
        mode: 'once',
        requests: reqs,
        expectStatus: kind === 'connect' ? [201] : [200],
        timeoutSec: 10,
      });
    // The first half warms the JIT; the second half is profiled.
    const warm = await load(requests.slice(0, half));
    console.log(`warm-up: ${warm.requests} requests, ${warm.errors} errors`);
    const cdp = await inspector(`ws://127.0.0.1:${inspectorPort}/core:user:tether`);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
    await cdp.send('Profiler.start');
    const m = await load(requests.slice(half));
    const { profile } = await cdp.send<{ profile: CpuProfile }>('Profiler.stop');
    cdp.close();
    console.log(`profiled: ${m.requests} requests, ${m.errors} errors, ${m.rps.toFixed(0)} req/s`);
    const rows = selfTimes(profile);
    const perRequest = (t: number) => (t / m.requests).toFixed(4);
    const busy = rows.filter((r) => !r.name.startsWith('(idle)')).reduce((a, r) => a + r.ms, 0);
    console.log(`sampled busy time: ${perRequest(busy)} ms/request (JS thread of the Worker's isolate)`);
    for (const r of rows.slice(0, 45))
      console.log(
        `${perRequest(r.ms).padStart(8)} ms  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}`,
      );
    console.log('total (self and callees):');
    for (const r of totalTimes(profile).slice(0, 60))
      console.log(`${perRequest(r.ms).padStart(8)} ms  ${r.name}`);
    const out = join(ROOT, 'bench-results');
    await mkdir(out, { recursive: true });
    await writeFile(join(out, `${kind}.cpuprofile`), JSON.stringify(profile));
    // The Worker's modules the profile's line numbers point into.
    await cp(join(dataDir, 'worker', 'bundle'), join(out, `${kind}.bundle`), { recursive: true });
  } finally {
    await stack.stop();
    await google.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
