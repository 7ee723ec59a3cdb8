/**
 * The Worker's three handlers: `fetch` serves the management API and the auth service, `queue`
 * consumes the provisioning queue and its dead-letter queue, `scheduled` runs the minute
 * reconciler. Kept apart from index.ts (which adds the Durable Object classes) so Node can run
 * them in process (test/helpers/in-process-app.ts).
 */
import { createDb, createPool } from '../db/client';
import { buildFetch } from './app';
import type { Bindings } from './config';
import { buildReconcilerServices, buildServices, type Services, type WorkerOptions } from './container';
import type { ProvisioningMessage } from './domain/queue-messages';
import { consumeProvisioning, recordDeadLetters } from './queues/consumer';
import { PROVISIONING_HANDLERS } from './queues/handlers';
import { type JobContext, jobContext } from './request-context';
import { purgeActivity } from './services/activity/retention';
import { RECONCILER_STEPS, runReconciler } from './services/reconciler';
import { credentialSteps } from './services/reconciler-steps';

/** Runs `work` with the environment's services and a database pool, closed afterwards. */
async function withServices<T>(
  env: Bindings,
  build: (env: Bindings) => Services,
  work: (ctx: Services & JobContext) => Promise<T>,
): Promise<T> {
  const services = build(env);
  const pool = createPool(services.config.DATABASE_URL, services.config.NEON_WS_PROXY);
  try {
    return await work(jobContext(services, createDb(pool)));
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** The Worker's handlers, with `options` (a test's clock) in every context they build. */
export const buildWorker = (options: WorkerOptions = {}) =>
  ({
    fetch: buildFetch(options),

    async queue(batch: MessageBatch<ProvisioningMessage>, env: Bindings): Promise<void> {
      await withServices(
        env,
        (e) => buildServices(e, options),
        async (ctx) => {
          if (batch.queue.endsWith('-dlq')) return recordDeadLetters(batch, ctx.db);
          return consumeProvisioning(batch, ctx, PROVISIONING_HANDLERS);
        },
      );
    },

    async scheduled(_controller: ScheduledController, env: Bindings): Promise<void> {
      // Admin sessions with a short lock timeout: one stalled item must cost the tick little.
      await withServices(
        env,
        (e) => buildReconcilerServices(e, options),
        (ctx) =>
          runReconciler(ctx, {
            ...RECONCILER_STEPS,
            ...credentialSteps(),
            'purge-activity': (c) => purgeActivity(c, { days: c.config.ACTIVITY_RETENTION_DAYS }),
          }),
      );
    },
  }) satisfies ExportedHandler<Bindings, ProvisioningMessage>;

/** The Worker's handlers. */
export const worker = buildWorker();
