/**
 * The node world of the `in-process` project: the services of the shared stack (embedded
 * PostgreSQL, the WebSocket proxy, the stand-ins: scripts/local/services.ts) and the Worker's
 * own handlers served from this Node process (test/node-workers/), with its Durable Object
 * classes on SQLite here and a provisioning queue that delivers to its queue handler. No workerd,
 * no Chromium. Test files get the same values as the workerd world gives (test/workerd-world.ts,
 * `inject()`), so a file runs in either world unchanged; `inject('world')` tells which.
 * test/run-worlds.ts starts it.
 */
import { createWriteStream } from 'node:fs';
import { format } from 'node:util';
import { prepareAssets } from '../scripts/local/build-assets';
import { freePort } from '../scripts/local/net';
import { startLocalServices } from '../scripts/local/services';
import { withoutNewSignalHandlers } from '../scripts/local/signals';
import { loadWorkerBundle } from './node-workers/bundle';
import { nodeDurableObjects } from './node-workers/durable-objects';
import { deliveringQueue } from './node-workers/queues';
import { serveWorker } from './node-workers/serve-worker';
import { type WorldValues, worldFolders, worldValues } from './world-setup';

/** wrangler.toml's Durable Object bindings, binding name to class name, as wrangler reads them. */
async function objectBindings(): Promise<Record<string, string>> {
  // wrangler refuses a config whose `[assets]` folder is missing, as it is on a fresh clone until
  // a stack writes it; the workerd world may be writing it too (prepareAssets allows that).
  await prepareAssets();
  // wrangler hooks SIGINT/SIGTERM on import (to exit 0 at once); keep the process's own handling.
  const wrangler = await withoutNewSignalHandlers(() => import('wrangler'));
  const { workerOptions } = wrangler.unstable_getMiniflareWorkerOptions('wrangler.toml');
  return Object.fromEntries(
    Object.entries(workerOptions.durableObjects ?? {}).map(([binding, target]) => [
      binding,
      typeof target === 'string' ? target : (target as { className: string }).className,
    ]),
  );
}

/** Sends this process's console (the Worker's log lines) to `file`; answers how to put it back. */
function consoleTo(file: string): () => void {
  const out = createWriteStream(file, { flags: 'a' });
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const write = (...args: unknown[]) => void out.write(`${format(...args)}\n`);
  Object.assign(console, { log: write, info: write, warn: write, error: write });
  return () => {
    Object.assign(console, saved);
    out.end();
  };
}

/** The running node world: what it hands test files, wrangler.toml's object bindings, and how to stop it. */
export interface NodeWorld {
  values: WorldValues;
  objectBindings: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts the services and the Worker. TETHER_TEST_LOGS=1 shows its console inline; TETHER_KEEP_DATA=1 keeps the data folder. */
export async function startNodeWorld(): Promise<NodeWorld> {
  const folders = await worldFolders();
  const { dataDir } = folders;
  const logFile = folders.logFile('node-worker');

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const services = await startLocalServices({
    baseUrl,
    dataDir,
    // Thrown away after the run: PostgreSQL need not wait for the disk.
    durable: false,
    // No test resolves a name outside the machine: webhook hosts are resolved by a port that refuses.
    env: { DNS_RESOLVER_URL: 'http://127.0.0.1:9/dns-query' },
  });
  const bundle = await loadWorkerBundle();
  const bindings = await objectBindings();
  let consume: (batch: MessageBatch<never>) => Promise<void> = async () => undefined;
  const provisioning = deliveringQueue((batch) => consume(batch as MessageBatch<never>));
  const objects = nodeDurableObjects(bindings, bundle.classes, {
    ...services.env,
    PROVISIONING: provisioning.queue,
  });
  const restoreConsole = logFile ? consoleTo(logFile) : () => undefined;
  const worker = await serveWorker({
    buildWorker: bundle.buildWorker,
    vars: services.env,
    objects,
    queue: provisioning.queue,
    port,
  });
  consume = worker.runQueue;
  if (logFile) process.stdout.write(`[tether] in-process Worker at ${baseUrl}, console in ${logFile}\n`);

  return {
    values: worldValues({ name: 'node', baseUrl, authUrl: baseUrl, folders }, services),
    objectBindings: bindings,
    async stop() {
      await provisioning.stop();
      await worker.stop();
      for (const namespace of Object.values(objects)) namespace.stop();
      await services.stop();
      await bundle.remove();
      restoreConsole();
      await folders.remove();
    },
  };
}
