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
import { consumeProvisioning, realFairness, recordDeadLetters } from './queues/consumer';
import { PROVISIONING_HANDLERS } from './queues/handlers';
import { type JobContext, jobContext } from './request-context';
import { purgeActivity } from './use-cases/activity/retention';
import { credentialSteps } from './use-cases/reconciler/credential-steps';
import { RECONCILER_STEPS, runReconciler } from './use-cases/reconciler/tick';

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

/**
 * Consumes a batch of the provisioning queue or of its dead-letter queue. A delivery past the
 * batch's time budget finishes under the invocation's `waitUntil` (queues/consumer.ts), and the
 * database pool stays open until it has; without an invocation (a test's), the batch waits for it.
 */
export async function consumeBatch(
  batch: MessageBatch<ProvisioningMessage>,
  env: Bindings,
  options: WorkerOptions,
  invocation?: Pick<ExecutionContext, 'waitUntil'>,
): Promise<void> {
  const deps = buildDependencies(env, options);
  const pool = createPool(deps.config.DATABASE_URL, deps.config.NEON_WS_PROXY);
  const late: Promise<unknown>[] = [];
  try {
    const ctx = jobContext(deps, createDb(pool));
    if (batch.queue.endsWith('-dlq')) return await recordDeadLetters(batch, ctx.db);
    const fairness = realFairness((work) => void late.push(work), options.queueBudgetMs, options.queueTimer);
    await consumeProvisioning(batch, ctx, PROVISIONING_HANDLERS, fairness);
  } finally {
    const closed = Promise.allSettled(late).then(() => pool.end().catch(() => undefined));
    if (invocation) invocation.waitUntil(closed);
    else await closed;
  }
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
