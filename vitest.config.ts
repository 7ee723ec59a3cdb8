import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { CRON_FILES, CRON_PROJECT } from './test/cron-files';
import { DurationSequencer } from './test/duration-sequencer';
import { IN_PROCESS_FILES, IN_PROCESS_PROJECT } from './test/in-process-files';
import { PROXIED_FILES } from './test/proxied-files';

/**
 * Test files run at once. The machine has two cores, but a file spends part of its time waiting on
 * its stack (a queue's retry delay, a poll of what a queue delivers): run alone, the in-process
 * project kept 1.5 of them busy. A third file takes that time.
 */
const FILES_AT_ONCE = 3;

/** TETHER_IN_PROCESS=0 runs every integration file on the workerd stack (to compare the two worlds). */
const inProcessFiles = process.env.TETHER_IN_PROCESS === '0' ? [] : IN_PROCESS_FILES;

/** Tests beside the code they pin (README.md, "where a new piece goes"): plain ones run in `unit`. */
const BESIDE_CODE = ['functions/**/*.test.ts', 'db/**/*.test.ts', 'scripts/**/*.test.ts'];
/** Those that reach the Worker over HTTP (`inject('baseUrl')`) run in `in-process`. */
const HTTP_BESIDE_CODE = 'functions/**/*.http.test.ts';

/** The Worker's Durable Object classes import their base class from workerd's module; Node gets a stand-in. */
const nodeWorkers = {
  alias: {
    'cloudflare:workers': fileURLToPath(
      new URL('./test/node-workers/cloudflare-workers.ts', import.meta.url),
    ),
  },
};

const integration = {
  environment: 'node' as const,
  // AppAuth-JS ships ESM with extensionless imports, which Node's loader cannot resolve: let Vite resolve them.
  server: { deps: { inline: ['@openid/appauth'] } },
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

/**
 * Five projects: `unit` (plain Node, no services: the tests beside their code, `<name>.test.ts` next
 * to the file it pins under functions/, db/ or scripts/, the repository's own checks in test/unit/,
 * the Durable Object runner of test/node-workers/; its files share their worker's modules);
 * `in-process` (the route tests beside their code that reach the Worker over HTTP,
 * `functions/**\/<name>.http.test.ts`, and the
 * integration files of test/in-process-files.ts: HTTP against the Worker's own handlers served
 * from Node (test/node-world.ts), on the real PostgreSQL, proxy and stand-ins, with the
 * real Durable Object classes on SQLite in Node and a delivering queue; no workerd, no Chromium);
 * `integration` (the rest: HTTP tests against one shared local stack with the Worker under
 * workerd, test/workerd-world.ts, and the e2e files with Chromium; its files share their
 * worker's modules); `integration-proxied`, the files that reach Durable Objects through
 * Miniflare's proxy, on the same stack but isolated (each file in a process of its own); and
 * `integration-cron`, the files that fire the minute cron (test/cron-files.ts), each on a stack of
 * the worker running it, which no other file uses meanwhile (test/cron-stack.ts), sharing that
 * worker's modules (a file that registers an engine takes it back out). test/global-setup.ts
 * starts every world a run needs side by side (test/run-worlds.ts). At most
 * {@link FILES_AT_ONCE} test files run at once; all projects share that limit (vitest runs
 * projects of one `groupOrder` side by side only when their `maxWorkers` agree), one project
 * after another in the sequencer's order (test/duration-sequencer.ts).
 */
export default defineConfig({
  test: {
    maxWorkers: FILES_AT_ONCE,
    // Longest files first, on a fresh clone too (test/file-durations.json).
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        resolve: nodeWorkers,
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'test/node-workers/**/*.test.ts',
            ...BESIDE_CODE,
            'packages/receiver/test/receiver.test.ts',
            'packages/auth-client/test/client.test.ts',
            'packages/auth-client/test/expo.test.ts',
          ],
          // A test beside its code that reaches the Worker over HTTP runs in `in-process`.
          exclude: [...configDefaults.exclude, HTTP_BESIDE_CODE],
          environment: 'node',
          // Its files share their worker's modules rather than starting a process each (a file leaves
          // no module-level state behind: README.md): the project takes 12 s rather than 31 s.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // For the files that run the Worker's modules in Node beside workerd (in-process-app.ts, adapter-contract).
        resolve: nodeWorkers,
        test: {
          ...integration,
          name: 'integration',
          include: [
            'test/integration/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'packages/receiver/test/stack.test.ts',
            'packages/auth-client/test/stack.test.ts',
          ],
          exclude: [...CRON_FILES, ...inProcessFiles, ...PROXIED_FILES],
          // As in-process's: its files share their worker's modules (a file leaves no module-level
          // state behind: README.md), which saves each file's imports (12 e2e files: 98 s to 72 s).
          isolate: false,
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The files that reach Durable Objects through Miniflare's proxy stay isolated (test/proxied-files.ts).
        resolve: nodeWorkers,
        test: {
          ...integration,
          name: 'integration-proxied',
          include: PROXIED_FILES,
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The Worker's Durable Object classes import their base class from workerd's module.
        resolve: {
          alias: {
            'cloudflare:workers': fileURLToPath(
              new URL('./test/node-workers/cloudflare-workers.ts', import.meta.url),
            ),
          },
        },
        test: {
          ...integration,
          name: IN_PROCESS_PROJECT,
          include: [HTTP_BESIDE_CODE, ...inProcessFiles],
          // Its files share their worker's modules, the Worker's among them, loaded once per worker
          // rather than once per file (a file leaves no module-level state behind: README.md).
          isolate: false,
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: CRON_PROJECT,
          include: CRON_FILES,
          setupFiles: ['test/cron-stack.ts'],
          isolate: false,
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
