/**
 * The Worker bundled for Node, as scripts/local/miniflare-worker.ts bundles it for workerd: our code in
 * one module (loaded by Node itself, without a test runner's per-module transform), its packages
 * imported from node_modules, `cloudflare:workers` replaced by ./cloudflare-workers.ts.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { buildWorker } from '../../functions/worker';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Node has no WebSocket of its own before 22: the database driver's pool reaches the proxy through ws. */
const ENTRY = `
import { neonConfig } from '@neondatabase/serverless';
import ws from 'ws';
neonConfig.webSocketConstructor = ws;
export { buildWorker } from './functions/worker';
export * from './functions/index';
`;

/** What the bundle exports: the handlers' builder and the entry's Durable Object classes. */
export interface WorkerBundle {
  buildWorker: typeof buildWorker;
  classes: Record<string, unknown>;
  /** Removes the bundle's folder. */
  remove(): Promise<void>;
}

/** Bundles functions/index.ts (and worker.ts's builder) for this Node process and loads it. */
export async function loadWorkerBundle(): Promise<WorkerBundle> {
  // Under node_modules, so Node finds the packages the bundle leaves as imports.
  const outdir = join(ROOT, 'node_modules', '.cache', 'tether-node-worker', String(process.pid));
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const outfile = join(outdir, 'worker.mjs');
  await build({
    stdin: {
      contents: ENTRY,
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    outfile,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    alias: { 'cloudflare:workers': join(ROOT, 'test/node-workers/cloudflare-workers.ts') },
    // Only the tunnel route opens TCP sockets; it is workerd's alone.
    external: ['cloudflare:sockets'],
    // The module rules wrangler applies by default.
    loader: { '.txt': 'text', '.html': 'text', '.sql': 'text', '.bin': 'binary' },
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  const { buildWorker, ...classes } = (await import(pathToFileURL(outfile).href)) as {
    buildWorker: WorkerBundle['buildWorker'];
  } & Record<string, unknown>;
  return { buildWorker, classes, remove: () => rm(outdir, { recursive: true, force: true }) };
}
