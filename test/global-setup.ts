import type { TestProject } from 'vitest/node';
import { freePort } from '../scripts/local/net';
import { startLocalStack } from '../scripts/local/stack';
import { chromiumExecutable } from './helpers/browser';
import { provideWorld, worldFolders } from './world-setup';

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
  }
}

/**
 * Starts the shared stack. Set TETHER_TEST_LOGS=1 to see the Worker's console output inline;
 * otherwise it goes to a file whose path is printed. TETHER_KEEP_DATA=1 keeps the data folder.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folders = await worldFolders();
  const { dataDir } = folders;
  const workerLogFile = folders.logFile('worker');

  // The packaged Chromium is unpacked here, once, while the stack starts, so the end-to-end
  // files running side by side find it ready.
  const [stack] = await Promise.all([
    startLocalStack({
      port: await freePort(),
      dataDir,
      workerLogFile,
      // The cron files check each repair after one tick: their reconciler's full sweep takes everything a tick.
      // No test resolves a name outside the machine: webhook hosts are resolved by a port that refuses.
      env: {
        DNS_RESOLVER_URL: 'http://127.0.0.1:9/dns-query',
        // Their files also make many databases in one project (connections-deliveries), past the default cap.
        ...(project.name === 'integration-cron'
          ? { RECONCILER_SWEEP_MINUTES: '1', MAX_DATABASES_PER_PROJECT: '50' }
          : {}),
      },
      // They fire each tick themselves; a tick of the shared Worker on the minute's timer would
      // sweep their files' buckets and databases too, with its own stand-ins, at any moment.
      cron: project.name !== 'integration-cron',
    }),
    chromiumExecutable(),
  ]);
  if (workerLogFile) console.log(`[tether] shared Worker at ${stack.baseUrl}, console in ${workerLogFile}`);

  provideWorld(project, { name: 'workerd', baseUrl: stack.baseUrl, authUrl: stack.authUrl, folders }, stack);

  return async () => {
    await stack.stop();
    await folders.remove();
  };
}
