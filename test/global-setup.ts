import type { TestProject } from 'vitest/node';
import { freePort } from '../scripts/local/net';
import { startLocalStack } from '../scripts/local/stack';
import { CRON_PROJECT } from './cron-files';
import { chromiumExecutable } from './helpers/browser';
import { provideWorld, type WorldValues, worldFolders, worldValues } from './world-setup';

declare module 'vitest' {
  /** Values the global setup hands to test files (`inject('baseUrl')`). */
  export interface ProvidedContext {
    /** Where the shared Worker runs: under workerd (this setup) or in Node (test/in-process-setup.ts). */
    world: 'workerd' | 'node';
    /** wrangler.toml's Durable Object bindings, binding name to class name: the node world's, for its extra Workers. */
    objectBindings?: Record<string, string>;
    /** The shared Worker, e.g. `http://127.0.0.1:41234` (also `{auth_url}`). */
    baseUrl: string;
    authUrl: string;
    /** The operator token (the only credential that may create accounts). */
    operatorToken: string;
    /** Superuser URL of the embedded PostgreSQL cluster. */
    adminUrl: string;
    /** URL of the metadata database. */
    metadataUrl: string;
    pgPort: number;
    /** NEON_WS_PROXY value: `127.0.0.1:<port>/v1`. */
    wsProxyUrl: string;
    /** Every variable the shared Worker runs with (secrets included), for extra Workers. */
    workerEnv: Record<string, string>;
    /** The stack's temporary data folder. */
    dataDir: string;
    /** Folder for Worker console logs (`worker-*.log`). */
    logDir: string;
    /** The cron project's stacks, one per worker: test/cron-stack.ts hands a file its worker's. */
    cronWorlds?: WorldValues[];
  }
}

/** Whether `project` is the cron project: its files fire the cron themselves (test/cron-files.ts). */
function isCron(project: TestProject): boolean {
  return project.name === CRON_PROJECT;
}

/**
 * Starts the shared stack; for the cron project, one stack per worker (test/cron-stack.ts gives
 * each file its worker's, so no two cron files ever share one). Set TETHER_TEST_LOGS=1 to see the
 * Worker's console output inline; otherwise it goes to a file whose path is printed.
 * TETHER_KEEP_DATA=1 keeps the data folder.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const count = isCron(project) ? project.config.maxWorkers : 1;
  // The packaged Chromium is unpacked here, once, while the stacks start, so the end-to-end
  // files running side by side find it ready.
  const [stacks] = await Promise.all([
    Promise.all(Array.from({ length: count }, () => startStack(project))),
    chromiumExecutable(),
  ]);
  const [first, ...rest] = stacks.map((s) => s.values);
  if (!first) throw new Error(`project ${project.name} has no worker to start a stack for`);
  provideWorld(project, first);
  if (isCron(project)) project.provide('cronWorlds', [first, ...rest]);

  return async () => {
    await Promise.all(stacks.map((s) => s.stop()));
  };
}

/** One stack in fresh folders: what it hands test files, and how to stop it. */
async function startStack(project: TestProject): Promise<{ values: WorldValues; stop(): Promise<void> }> {
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
      ...(isCron(project) ? { RECONCILER_SWEEP_MINUTES: '1', MAX_DATABASES_PER_PROJECT: '50' } : {}),
    },
    // They fire each tick themselves; a tick of the shared Worker on the minute's timer would
    // sweep their files' buckets and databases too, with its own stand-ins, at any moment.
    cron: !isCron(project),
  });
  if (workerLogFile) console.log(`[tether] shared Worker at ${stack.baseUrl}, console in ${workerLogFile}`);
  return {
    values: worldValues({ name: 'workerd', baseUrl: stack.baseUrl, authUrl: stack.authUrl, folders }, stack),
    async stop() {
      await stack.stop();
      await folders.remove();
    },
  };
}
