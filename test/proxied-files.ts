/**
 * The integration test files that reach the Worker's Durable Objects through Miniflare's proxy
 * (`objectOf`, `startDurableObjects` of test/helpers/durable-objects.ts). Miniflare's synchronous
 * proxy, shared by the files of one vitest worker, answered one file's calls with another's
 * (`SynchronousFetcher: message id mismatch`), so vitest.config.ts runs these isolated, each file
 * in a process of its own, while the other integration files share their worker's modules.
 * test/unit/in-process-files.test.ts keeps the list complete.
 */
export const PROXIED_FILES = [
  'test/integration/adapter-contract.test.ts',
  'test/integration/code-regions.test.ts',
  'test/integration/console-sign-in-starts.test.ts',
  'test/integration/oauth-exchange.test.ts',
  'test/integration/oauth-object-storage.test.ts',
  'test/integration/oauth-rate-limits.test.ts',
  'test/integration/oauth-replay-lockout.test.ts',
  'test/integration/oauth-session-limits.test.ts',
];
