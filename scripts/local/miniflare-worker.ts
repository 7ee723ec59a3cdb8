/**
 * Runs the Tether Worker locally: built as it deploys (scripts/build-worker.ts) and served by Miniflare (workerd's
 * own socket, no wrangler dev proxy in front), with the bindings wrangler.toml declares.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Miniflare, type MiniflareOptions, type WorkerOptions } from 'miniflare';
import { bundleWorker, moduleSources } from '../build-worker';
import { ASSET_ROUTES, prepareAssets } from './build-assets';
import { cachedBuild } from './bundle-cache';
import { withoutNewSignalHandlers } from './signals';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Options for {@link startWorker}. */
export interface StartWorkerOptions {
  /** Port to listen on; a free one when omitted. */
  port?: number;
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Plain-text bindings (vars and secrets); they override wrangler.toml's `[vars]`. */
  env: Record<string, string>;
  /** Folder for the Worker's Durable Object storage (kept across restarts) and its bundle. */
  persistDir: string;
  /** Worker entry point; functions/index.ts by default. */
  entry?: string;
  /** wrangler config to take bindings from; wrangler.toml at the repository root by default. */
  configPath?: string;
  /** Append workerd's stdout/stderr (the Worker's console) here instead of this process's output. */
  logFile?: string;
  /**
   * Serve Miniflare's `/cdn-cgi/handler/scheduled` (and `/queue`) trigger routes, so a
   * process without the Miniflare object (a test file) can fire the cron. Default true.
   */
  triggerHandlers?: boolean;
  /** Open workerd's V8 inspector on this port (CPU profiles: scripts/bench/profile.ts). */
  inspectorPort?: number;
  /**
   * Seconds each queue consumer waits to fill a batch, over wrangler.toml's `max_batch_timeout`:
   * the test stacks pass 0, so a message is handed on at once rather than after a second.
   */
  queueBatchTimeout?: number;
}

/** Result of a scheduled run. */
export interface ScheduledOutcome {
  outcome: string;
  noRetry: boolean;
}

/** A running local Worker. */
export interface LocalWorker {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** The Miniflare instance, for direct access to bindings in tests. */
  mf: Miniflare;
  /** Fires the Worker's `scheduled` handler once (Miniflare never fires crons by itself). */
  runScheduled(cron?: string): Promise<ScheduledOutcome>;
  /** Disposes Miniflare and removes the bundle; safe to call more than once. */
  stop(): Promise<void>;
}

/** The globs of wrangler.toml's own Text rules (its defaults are the build's loaders). */
function customTextGlobs(
  rules: ReadonlyArray<{ type: string; include: readonly string[] }> | undefined,
): string[] {
  const defaults = new Set(['**/*.txt', '**/*.html', '**/*.sql']);
  return (rules ?? [])
    .filter((rule) => rule.type === 'Text')
    .flatMap((rule) => rule.include)
    .filter((glob) => !defaults.has(glob));
}

type QueueConsumers = NonNullable<WorkerOptions['queueConsumers']>;

/** wrangler's queue consumers, each waiting at most `seconds` to fill a batch. */
function withBatchTimeout(consumers: QueueConsumers, seconds: number): QueueConsumers {
  if (Array.isArray(consumers)) throw new Error('queue consumers by name only: wrangler gives a map');
  const byQueue = consumers as Record<string, Record<string, unknown>>;
  return Object.fromEntries(
    Object.entries(byQueue).map(([queue, consumer]) => [queue, { ...consumer, maxBatchTimeout: seconds }]),
  ) as QueueConsumers;
}

function sendTo(file: string): (stdout: Readable, stderr: Readable) => void {
  return (stdout, stderr) => {
    const out = createWriteStream(file, { flags: 'a' });
    stdout.pipe(out, { end: false });
    stderr.pipe(out, { end: false });
  };
}

/**
 * Bundles and starts the Worker. Durable Objects, queue producers and consumers (with the
 * dead-letter queue), compatibility date and flags come from wrangler.toml through
 * wrangler's `unstable_getMiniflareWorkerOptions`, so they cannot drift from the deployed
 * configuration; `env` is merged over its `[vars]`.
 */
export async function startWorker(opts: StartWorkerOptions): Promise<LocalWorker> {
  const entry = resolve(opts.entry ?? join(ROOT, 'functions/index.ts'));
  const configPath = resolve(opts.configPath ?? join(ROOT, 'wrangler.toml'));
  // wrangler refuses a config whose [assets] folder is missing; it is generated.
  await prepareAssets();
  // wrangler hooks SIGINT/SIGTERM on import (to exit 0 at once); keep the process's own handling.
  const wrangler = await withoutNewSignalHandlers(() => import('wrangler'));
  const { workerOptions, define } = wrangler.unstable_getMiniflareWorkerOptions(configPath);

  // The bundle lives next to the Worker's state (rebuilt on every start), not in /tmp.
  const outdir = resolve(opts.persistDir, 'bundle');
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  let mf: Miniflare | undefined;
  try {
    // The static assets get a Worker of their own, routed by path (ASSET_ROUTES), so the
    // Worker stays Miniflare's entry: with `assets` on it, the entry would be the assets router,
    // which has no `scheduled` for /cdn-cgi/handler/scheduled to call.
    const { modulesRules, assets, ...bindingsAndFlags } = workerOptions;
    // The Worker's modules as the deployed build makes them; wrangler's Text rules become esbuild loaders.
    // Built once while its sources stay the same (bundle-cache.ts): every test stack and extra Worker starts from it.
    const build = { define, textGlobs: customTextGlobs(modulesRules) };
    const built = await cachedBuild({ entry, ...build }, outdir, () => bundleWorker(entry, outdir, build));
    const batchTimeout = opts.queueBatchTimeout;
    const worker: WorkerOptions = {
      ...bindingsAndFlags,
      ...(batchTimeout !== undefined && bindingsAndFlags.queueConsumers
        ? { queueConsumers: withBatchTimeout(bindingsAndFlags.queueConsumers, batchTimeout) }
        : {}),
      name: 'tether',
      modulesRoot: outdir,
      modules: await moduleSources(built),
      bindings: { ...workerOptions.bindings, ...opts.env },
    };
    const options: MiniflareOptions = {
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 0,
      durableObjectsPersist: resolve(opts.persistDir, 'durable-objects'),
      unsafeTriggerHandlers: opts.triggerHandlers ?? true,
      ...(opts.inspectorPort ? { inspectorPort: opts.inspectorPort } : {}),
      ...(opts.logFile ? { handleRuntimeStdio: sendTo(opts.logFile) } : {}),
      workers: [
        worker,
        ...(assets
          ? [
              {
                name: 'tether-assets',
                modules: true,
                script: 'export default { fetch: (request, env) => env.ASSETS.fetch(request) };',
                compatibilityDate: worker.compatibilityDate,
                assets: { ...assets, workerName: 'tether-assets', binding: 'ASSETS' },
                routes: ASSET_ROUTES,
              } satisfies WorkerOptions,
            ]
          : []),
      ],
    };
    mf = new Miniflare(options);
    const url = (await mf.ready).toString().replace(/\/$/, '');
    const running = mf;

    let stopped: Promise<void> | undefined;
    return {
      url,
      mf: running,
      async runScheduled(cron = '* * * * *') {
        const fetcher = await running.getWorker();
        const result = await fetcher.scheduled({ cron });
        return { outcome: result.outcome, noRetry: result.noRetry };
      },
      stop() {
        stopped ??= running.dispose().finally(() => rm(outdir, { recursive: true, force: true }));
        return stopped;
      },
    };
  } catch (err) {
    await mf?.dispose().catch(() => undefined);
    await rm(outdir, { recursive: true, force: true });
    throw err;
  }
}
