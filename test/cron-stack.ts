/**
 * Set-up file of the cron project (vitest.config.ts): hands this file the stack of the worker
 * running it. test/run-worlds.ts starts one stack per worker of the project and vitest numbers
 * the files running at one moment 1..maxWorkers (VITEST_POOL_ID, distinct among them), so two
 * cron files running side by side never share a stack (test/cron-files.ts says why they must not).
 */
import pg from 'pg';
import { inject } from 'vitest';
import type { WorldValues } from './world-setup';

const worlds = inject('cronWorlds');
const poolId = Number(process.env.VITEST_POOL_ID);
const mine = worlds?.[poolId - 1];
if (!mine) {
  throw new Error(`no cron stack for worker ${process.env.VITEST_POOL_ID} of ${worlds?.length ?? 0}`);
}

// `inject()` reads the values vitest handed this worker; vitest has no public way to hand one
// file of a project other values than its neighbour, so they are replaced where inject reads them.
const state = (globalThis as { __vitest_worker__?: { providedContext?: Record<string, unknown> } })
  .__vitest_worker__;
if (!state?.providedContext)
  throw new Error("vitest's worker state moved: test/cron-stack.ts needs updating");
Object.assign(state.providedContext, mine);
for (const key of Object.keys(mine) as (keyof WorldValues)[]) {
  if (inject(key) !== mine[key]) throw new Error(`inject('${key}') does not answer this worker's cron stack`);
}

// Each file starts the stack's sweeps at the beginning of their lap. An earlier file on this stack
// may have ticked with RECONCILER_SWEEP_MINUTES 1440 (reconcile-slices, query-plans), whose slice
// of ten ids leaves a sweep's cursor mid-lap; this project's one-lap-a-tick ticks would then
// resume after it, and a file that checks a repair after one tick would miss the ids before it.
const sweeps = new pg.Client({ connectionString: inject('metadataUrl') });
await sweeps.connect();
try {
  await sweeps.query('update reconciler_state set cursor = null where cursor is not null');
} finally {
  await sweeps.end();
}
