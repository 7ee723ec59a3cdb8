/**
 * Extra Workers for tests that need variables the shared Worker lacks (for example
 * RUNTIME_PATCH_URL pointing at a {@link startReceiver} of their own). They use the shared
 * PostgreSQL, proxy and secrets, so accounts made through one are visible to the other.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { type LocalWorker, startWorker } from '../../scripts/local/miniflare-worker';
import { freePort } from '../../scripts/local/net';
import type { ServedWorker } from '../node-workers/serve-worker';

/** A Worker started by a test; `stop()` also removes its Durable Object storage. */
export interface ExtraWorker extends LocalWorker {
  /** Same as `url`: `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** Where the Worker's console output goes; undefined with TETHER_TEST_LOGS=1 (the terminal). */
  logFile: string | undefined;
  /** The folder holding this Worker's Durable Object storage (and its bundle). */
  persistDir: string;
  /**
   * Stops this Worker and starts it again on the same port with the same Durable Object
   * storage, as a redeploy or an eviction would: every object starts afresh from storage.
   */
  restart(): Promise<ExtraWorker>;
}

/**
 * Starts another Worker on a free port with the shared Worker's variables, its own
 * PUBLIC_BASE_URL/PUBLIC_AUTH_URL, and `env` on top: a second Miniflare (bindings from
 * `opts.configPath`, wrangler.toml by default; the Worker `opts.entry`, functions/index.ts by
 * default), or in the in-process project (`inject('world')` is `node`) the Worker's handlers in
 * this process. Stop it in `afterAll`.
 */
export async function startExtraWorker(
  env: Record<string, string> = {},
  opts: { configPath?: string; entry?: string } = {},
): Promise<ExtraWorker> {
  if (inject('world') === 'node') {
    if (opts.configPath || opts.entry)
      throw new Error('another entry or config needs workerd: keep the file out of test/in-process-files.ts');
    // Imported here only: the Worker's modules load in Node only where the in-process project aliases `cloudflare:workers`.
    const { startNodeWorker } = await import('../node-workers/extra-worker');
    return nodeExtraWorker(await startNodeWorker(env));
  }
  const persistDir = await mkdtemp(join(tmpdir(), 'tether-extra-worker-'));
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(await freePort(), persistDir, env, opts);
    } catch (err) {
      // A port found free can be taken before workerd binds it (outgoing connections draw
      // their local ports from the same range): another port, a few times, then give up.
      if (attempt < 3 && (err as { code?: string }).code === 'ERR_ADDRESS_IN_USE') continue;
      await rm(persistDir, { recursive: true, force: true });
      throw err;
    }
  }
}

/** What workerd alone offers, asked of a Worker run in Node. */
function needsWorkerd(what: string): never {
  throw new Error(`${what} needs workerd: keep the file out of test/in-process-files.ts`);
}

/** An in-process Worker as an {@link ExtraWorker}. */
function nodeExtraWorker(worker: ServedWorker): ExtraWorker {
  const extra: Omit<ExtraWorker, 'mf' | 'persistDir'> = {
    url: worker.baseUrl,
    baseUrl: worker.baseUrl,
    logFile: undefined,
    async runScheduled() {
      await worker.runScheduled();
      return { outcome: 'ok', noRetry: false };
    },
    stop: () => worker.stop(),
    restart: () => needsWorkerd('a restart from stored Durable Objects'),
  };
  // Not enumerable, so a copy of the Worker (`{ ...worker }`) leaves them out rather than failing.
  return Object.defineProperties(extra, {
    mf: { get: () => needsWorkerd('Miniflare'), enumerable: false },
    persistDir: { get: () => needsWorkerd('a persisted Durable Object folder'), enumerable: false },
  }) as ExtraWorker;
}

async function startOn(
  port: number,
  persistDir: string,
  env: Record<string, string>,
  opts: { configPath?: string; entry?: string },
): Promise<ExtraWorker> {
  const local = `http://127.0.0.1:${port}`;
  const logFile =
    process.env.TETHER_TEST_LOGS === '1' ? undefined : join(inject('logDir'), `extra-worker-${port}.log`);
  const worker = await startWorker({
    port,
    persistDir,
    logFile,
    env: { ...inject('workerEnv'), PUBLIC_BASE_URL: local, PUBLIC_AUTH_URL: local, ...env },
    // As the shared Worker (test/workerd-world.ts): a queue message is handed on at once.
    queueBatchTimeout: 0,
    ...opts,
  });
  return {
    ...worker,
    baseUrl: worker.url,
    logFile,
    persistDir,
    async stop() {
      await worker.stop();
      await rm(persistDir, { recursive: true, force: true });
    },
    async restart() {
      await worker.stop();
      return startOn(port, persistDir, env, opts);
    },
  };
}

/**
 * Fires the `scheduled` handler (the minute cron) of the Worker at `baseUrl` once, through
 * Miniflare's `/cdn-cgi/handler/scheduled` route; the shared Worker by default.
 */
export async function triggerScheduled(
  baseUrl: string = inject('baseUrl'),
  cron = '* * * * *',
): Promise<void> {
  const res = await fetch(`${baseUrl}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}`);
  const text = await res.text();
  if (!res.ok) throw new Error(`scheduled run failed: ${res.status} ${text}`);
}
