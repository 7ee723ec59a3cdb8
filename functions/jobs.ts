/**
 * The Worker's queue and scheduled work (worker.ts loads this module on the first batch or
 * tick, so an isolate that only answers requests never runs the reconciler's or the queue
 * handlers' modules).
 */
import { createDb, createPool } from '../db/client';
import type { Bindings } from './config';
import {
  buildDependencies,
  buildReconcilerDependencies,
  type Dependencies,
  type WorkerOptions,
} from './container';
import type { ProvisioningMessage } from './domain/queue-messages';
import { consumeProvisioning, recordDeadLetters } from './queues/consumer';
import { PROVISIONING_HANDLERS } from './queues/handlers';
import { type JobContext, jobContext } from './request-context';
import { purgeActivity } from './use-cases/activity/retention';
import { credentialSteps } from './use-cases/reconciler/credential-steps';
import { RECONCILER_STEPS, runReconciler } from './use-cases/reconciler/run';

/** Runs `work` with the environment's dependencies and a database pool, closed afterwards. */
async function withDependencies<T>(
  env: Bindings,
  build: (env: Bindings) => Dependencies,
  work: (ctx: Dependencies & JobContext) => Promise<T>,
): Promise<T> {
  const deps = build(env);
  const pool = createPool(deps.config.DATABASE_URL, deps.config.NEON_WS_PROXY);
  try {
    return await work(jobContext(deps, createDb(pool)));
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** Consumes a batch of the provisioning queue or of its dead-letter queue. */
export async function consumeBatch(
  batch: MessageBatch<ProvisioningMessage>,
  env: Bindings,
  options: WorkerOptions,
): Promise<void> {
  await withDependencies(
    env,
    (e) => buildDependencies(e, options),
    async (ctx) => {
      if (batch.queue.endsWith('-dlq')) return recordDeadLetters(batch, ctx.db);
      return consumeProvisioning(batch, ctx, PROVISIONING_HANDLERS);
    },
  );
}

/** Runs one reconciler tick. */
export async function reconcile(env: Bindings, options: WorkerOptions): Promise<void> {
  // Admin sessions with a short lock timeout: one stalled item must cost the tick little.
  await withDependencies(
    env,
    (e) => buildReconcilerDependencies(e, options),
    (ctx) =>
      runReconciler(ctx, {
        ...RECONCILER_STEPS,
        ...credentialSteps(),
        'purge-activity': (c) => purgeActivity(c, { days: c.config.ACTIVITY_RETENTION_DAYS }),
      }),
  );
}
