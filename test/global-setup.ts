import { setUpWorld } from './run-worlds';
import type { WorldValues } from './world-setup';

declare module 'vitest' {
  /** Values the global setup hands to test files (`inject('baseUrl')`). */
  export interface ProvidedContext {
    /** Where the shared Worker runs: under workerd (test/workerd-world.ts) or in Node (test/node-world.ts). */
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

/**
 * The global set-up of every project with a world: the `in-process` project's node world
 * (test/node-world.ts), the integration projects' workerd stack and the cron project's stacks
 * (test/workerd-world.ts), all started side by side (test/run-worlds.ts).
 */
export default setUpWorld;
