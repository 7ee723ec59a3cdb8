/**
 * An isolate's start: a fresh workerd (Miniflare) given a Worker script, to its first answer
 * (GET /healthz, whatever its status: the script is loaded and has run). Measured for the
 * deployable script and, in the same run, for a minimal Hono Worker, so the difference is what
 * the script itself costs; the median of a few starts each.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MINIMAL = `import { Hono } from 'hono';
const app = new Hono();
app.get('/healthz', (c) => c.json({ ok: true }));
export default app;
`;

/** Milliseconds from a new workerd to the first answer of the Worker at `script`. */
async function startOnce(script: string): Promise<number> {
  const started = performance.now();
  const mf = new Miniflare({
    // Module paths are relative to modulesRoot; workerd refuses one that climbs out of it.
    modulesRoot: dirname(script),
    modules: [{ type: 'ESModule', path: script, contents: await readFile(script, 'utf8') }],
    compatibilityDate: '2026-04-20',
    compatibilityFlags: ['nodejs_compat'],
    port: 0,
    // The script's own console (an incomplete environment, here) is not the bench's output.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume();
      stderr.resume();
    },
  });
  try {
    const url = await mf.ready;
    const res = await fetch(new URL('/healthz', url));
    await res.arrayBuffer();
    return performance.now() - started;
  } finally {
    await mf.dispose();
  }
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Median start of `script` (the minified deployable one) and of a minimal Hono Worker, `runs` each, alternated. */
export async function measureIsolateStart(
  script: string,
  runs = 5,
): Promise<{ scriptMs: number; minimalMs: number; runs: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-bench-isolate-'));
  try {
    const entry = join(dir, 'minimal.ts');
    await writeFile(entry, MINIMAL);
    const minimal = join(dir, 'minimal.js');
    await build({
      entryPoints: [entry],
      outfile: minimal,
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      nodePaths: [join(ROOT, 'node_modules')],
      logLevel: 'warning',
    });
    const own: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < runs; i++) {
      own.push(await startOnce(script));
      base.push(await startOnce(minimal));
    }
    return { scriptMs: median(own), minimalMs: median(base), runs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
