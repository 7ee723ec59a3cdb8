/**
 * The test files that fire a Worker's minute cron (triggerScheduled, runScheduled). A cron run
 * acts on the whole metadata database: it records policy drift, repairs credentials and
 * re-sends stalled deliveries of every project, to the receivers of the Worker that ran it.
 * Two such files side by side on one database take each other's deliveries (one file's
 * receiver acknowledges the policy the other waits for), so vitest.config.ts runs these in a
 * project of their own, {@link CRON_PROJECT}, beside the others: test/run-worlds.ts starts one
 * stack per worker for it and test/cron-stack.ts hands each file its worker's, so a cron file
 * never shares its stack with another file. test/unit/cron-files.test.ts keeps the list complete.
 */
/** The vitest project of the cron files. */
export const CRON_PROJECT = 'integration-cron';

/** The files that fire the cron. */
export const CRON_FILES = [
  'test/integration/bucket-service-credentials.test.ts',
  'test/integration/connections-deliveries.test.ts',
  'test/integration/credential-repair.test.ts',
  'test/integration/credentials-drift.test.ts',
  'test/integration/credentials-login.test.ts',
  'test/integration/credentials-switching.test.ts',
  'test/integration/database-lock.test.ts',
  'test/integration/kinds-fake-engine.test.ts',
  'test/integration/local-stack.test.ts',
  'test/integration/principal-state.test.ts',
  'test/integration/principals-mongodb.test.ts',
  'test/integration/principals-postgres.test.ts',
  'test/integration/query-plans.test.ts',
  'test/integration/reconcile-slice-retry.test.ts',
  'test/integration/reconcile-slices.test.ts',
  'test/integration/reconciler-isolation.test.ts',
  'test/integration/rotation-grace-seconds.test.ts',
  'test/integration/rotation-graceful.test.ts',
  'test/integration/rotation-targets.test.ts',
  'test/integration/rotation-worker-death.test.ts',
  'test/integration/shared-reader.test.ts',
  'test/integration/shared-writer.test.ts',
  'test/integration/tenant-cluster-admin.test.ts',
  'test/integration/tenant-isolation.test.ts',
  'test/integration/tenant-limit-repair.test.ts',
  'test/integration/tenant-pinning.test.ts',
];
