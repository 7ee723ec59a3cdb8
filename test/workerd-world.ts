/**
 * The workerd world of the integration projects: a local stack (scripts/local/stack.ts) with the
 * Worker under workerd, in fresh folders. test/run-worlds.ts starts one for the `integration` and
 * `integration-proxied` projects and one per worker for the cron project (test/cron-files.ts).
 * Set TETHER_TEST_LOGS=1 to see the Worker's console output inline; otherwise it goes to a file
 * whose path is printed. TETHER_KEEP_DATA=1 keeps the data folder.
 */
import { freePort } from '../scripts/local/net';
import { startLocalStack } from '../scripts/local/stack';
import { type WorldValues, worldFolders, worldValues } from './world-setup';

/** A running stack: what it hands test files, and how to stop it. */
export interface WorkerdStack {
  values: WorldValues;
  stop(): Promise<void>;
}

/**
 * Starts one stack. A cron stack's files fire each tick themselves (test/cron-files.ts), so its
 * Worker has no timer of its own and its reconciler sweeps everything in one tick.
 */
export async function startWorkerdStack(opts: { cron: boolean }): Promise<WorkerdStack> {
  const folders = await worldFolders();
  const { dataDir } = folders;
  const workerLogFile = folders.logFile('worker');
  const stack = await startLocalStack({
    port: await freePort(),
    dataDir,
    workerLogFile,
    // Thrown away after the run: PostgreSQL need not wait for the disk.
    durable: false,
    // A queue message is handed on at once, not after waiting a second for a fuller batch.
    queueBatchTimeout: 0,
    // The cron files check each repair after one tick: their reconciler's full sweep takes everything a tick.
    // No test resolves a name outside the machine: webhook hosts are resolved by a port that refuses.
    env: {
      DNS_RESOLVER_URL: 'http://127.0.0.1:9/dns-query',
      // Their files also make many databases in one project (connections-deliveries), past the default cap.
      ...(opts.cron ? { RECONCILER_SWEEP_MINUTES: '1', MAX_DATABASES_PER_PROJECT: '50' } : {}),
    },
    // They fire each tick themselves; a tick of the shared Worker on the minute's timer would
    // sweep their files' buckets and databases too, with its own stand-ins, at any moment.
    cron: !opts.cron,
  });
  // Not console.log: the node world, starting beside it, sends this process's console to its own log.
  if (workerLogFile)
    process.stdout.write(`[tether] shared Worker at ${stack.baseUrl}, console in ${workerLogFile}\n`);
  return {
    values: worldValues({ name: 'workerd', baseUrl: stack.baseUrl, authUrl: stack.authUrl, folders }, stack),
    async stop() {
      await stack.stop();
      await folders.remove();
    },
  };
}
