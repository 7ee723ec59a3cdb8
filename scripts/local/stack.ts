/**
 * The whole local service: the services the Worker runs against (services.ts: embedded
 * PostgreSQL, the WebSocket proxy the Neon driver needs, the metadata migrations, the
 * stand-ins) and the Worker under Miniflare.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type LocalWorker, startWorker } from './miniflare-worker';
import { type LocalServices, startLocalServices } from './services';

/** Options for {@link startLocalStack}. */
export interface LocalStackOptions {
  /** Port the Worker listens on (127.0.0.1). */
  port: number;
  /** Folder for everything the stack keeps; an empty folder gives a fresh service. */
  dataDir: string;
  /** Worker variables; they override everything else, generated secrets included. */
  env?: Record<string, string>;
  /** Fire the Worker's cron every 60 seconds (Miniflare never does by itself). Default true. */
  cron?: boolean;
  /** Where the Worker's console goes; this process's output when omitted. */
  workerLogFile?: string;
  /** Worker entry point, functions/index.ts by default. */
  entry?: string;
  /**
   * Milliseconds every SQL-over-HTTP request waits before its answer, standing for the distance
   * from the edge to the database; TETHER_SQL_RTT_MS, else 0.
   */
  sqlRttMs?: number;
  /**
   * Run the local Google and GitHub sign-in stand-in for providers whose endpoints are not
   * given (what `npm start` does). Default false.
   */
  signInStandIn?: boolean;
  /** Open workerd's V8 inspector on this port (CPU profiles: scripts/bench/profile.ts). */
  inspectorPort?: number;
  /** Seconds a queue consumer waits to fill a batch, over wrangler.toml's (miniflare-worker.ts `queueBatchTimeout`). */
  queueBatchTimeout?: number;
  /** Flush PostgreSQL's writes to disk (postgres.ts `durable`); default true, false for throwaway test stacks. */
  durable?: boolean;
}

/** A running local stack: its services (services.ts) and the Worker. */
export interface LocalStack extends LocalServices {
  /** Where the Worker answers, e.g. `http://127.0.0.1:8787` (`{base_url}`). */
  baseUrl: string;
  /** Where the auth routes answer (`{auth_url}`): the same Worker. */
  authUrl: string;
  worker: LocalWorker;
  /** Stops the Worker, the proxy and PostgreSQL, in that order; safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Starts the local services (services.ts) and the Worker on `http://127.0.0.1:${port}`. If a
 * later step fails, the earlier ones are stopped again.
 */
export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true });
  const services = await startLocalServices({
    baseUrl: `http://127.0.0.1:${opts.port}`,
    dataDir,
    env: opts.env,
    sqlRttMs: opts.sqlRttMs,
    signInStandIn: opts.signInStandIn,
    durable: opts.durable,
  });
  const cleanups: Array<() => Promise<void>> = [() => services.stop()];
  const unwind = async (): Promise<void> => {
    for (let step = cleanups.pop(); step !== undefined; step = cleanups.pop()) {
      await step().catch(() => undefined);
    }
  };

  try {
    const { env } = services;
    const worker = await startWorker({
      port: opts.port,
      env,
      persistDir: join(dataDir, 'worker'),
      entry: opts.entry,
      logFile: opts.workerLogFile,
      inspectorPort: opts.inspectorPort,
      queueBatchTimeout: opts.queueBatchTimeout,
    });
    cleanups.push(() => worker.stop());

    let timer: NodeJS.Timeout | undefined;
    if (opts.cron ?? true) {
      let running = false;
      timer = setInterval(() => {
        if (running) return;
        running = true;
        worker
          .runScheduled()
          .catch((err: unknown) => console.error('[tether] scheduled run failed:', err))
          .finally(() => {
            running = false;
          });
      }, 60_000);
      timer.unref();
    }
    cleanups.push(async () => clearInterval(timer));

    let stopped: Promise<void> | undefined;
    return {
      ...services,
      baseUrl: worker.url,
      authUrl: worker.url,
      worker,
      stop() {
        stopped ??= unwind();
        return stopped;
      },
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
