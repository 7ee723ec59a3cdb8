/**
 * The load generator, run as its own Node process (`node --import tsx load-child.ts <spec>
 * <out>`) so that it never shares an event loop with Miniflare's Node side. It drives
 * autocannon, records every response's latency itself and writes a Measurement as JSON.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { measurement } from './stats';
import type { LoadRequest, LoadSpec } from './types';

interface RawRun {
  samples: number[];
  statusCounts: Record<string, number>;
  errors: number;
  wallMs: number;
}

function toAutocannonRequest(r: LoadRequest): autocannon.Request {
  return {
    method: r.method as autocannon.Request['method'],
    path: r.path,
    headers: r.headers ?? {},
    ...(r.body !== undefined ? { body: r.body } : {}),
  };
}

function options(spec: LoadSpec, durationSec: number | undefined): autocannon.Options {
  const base = { url: spec.url, connections: spec.connections, timeout: spec.timeoutSec, pipelining: 1 };
  if (spec.mode === 'cycle') {
    return { ...base, duration: durationSec ?? 10, requests: spec.requests.map(toAutocannonRequest) };
  }
  // Each request exactly once: one shared cursor across all connections; `amount` stops it.
  let next = 0;
  const list = spec.requests;
  return {
    ...base,
    connections: Math.min(spec.connections, list.length),
    amount: list.length,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => {
          const r = list[next % list.length] as LoadRequest;
          next += 1;
          return { ...req, ...toAutocannonRequest(r) };
        },
      },
    ],
  };
}

function runOnce(spec: LoadSpec, durationSec: number | undefined): Promise<RawRun> {
  return new Promise((resolve, reject) => {
    const samples: number[] = [];
    const statusCounts: Record<string, number> = {};
    let errors = 0;
    const bump = (key: string): void => {
      statusCounts[key] = (statusCounts[key] ?? 0) + 1;
    };
    const started = performance.now();
    let lastResponse = started;
    const instance = autocannon(options(spec, durationSec), (err, result) => {
      clearTimeout(cap);
      if (err) return reject(err);
      const timeouts = result.timeouts ?? 0;
      if (timeouts > 0) statusCounts.timeout = timeouts;
      resolve({ samples, statusCounts, errors, wallMs: lastResponse - started });
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      lastResponse = performance.now();
      samples.push(responseTime);
      bump(String(statusCode));
      if (!spec.expectStatus.includes(statusCode)) errors += 1;
    });
    // A `once` run also stops at its duration, whatever is left of the list.
    const cap = setTimeout(
      () => instance.stop(),
      spec.mode === 'once' && durationSec ? durationSec * 1000 : 2 ** 31 - 1,
    );
    instance.on('reqError', () => {
      errors += 1;
      bump('error');
    });
  });
}

async function main(): Promise<void> {
  const [specPath, outPath] = process.argv.slice(2);
  if (!specPath || !outPath) throw new Error('usage: load-child.ts <spec.json> <out.json>');
  const spec = JSON.parse(await readFile(specPath, 'utf8')) as LoadSpec;
  if (spec.requests.length === 0) throw new Error('load spec has no requests');
  if (spec.mode === 'cycle' && spec.warmupSec && spec.warmupSec > 0) await runOnce(spec, spec.warmupSec);
  const run = await runOnce(spec, spec.durationSec);
  const result = measurement(run.samples, run.wallMs, run.errors, run.statusCounts);
  await writeFile(outPath, JSON.stringify(spec.keepSamples ? { ...result, samples: run.samples } : result));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(1);
  },
);
