/**
 * The Worker: `fetch` serves the management API and the auth service, `queue` consumes the
 * provisioning queue and its dead-letter queue, `scheduled` runs the minute reconciler.
 */
import { createDb, createPool } from '../db/client';
import { buildFetch } from './app';
import type { Bindings } from './config';
import { buildServices, type Services } from './container';
import type { ProvisioningMessage } from './domain/queue-messages';
import { consumeProvisioning, recordDeadLetters } from './queues/consumer';
import { PROVISIONING_HANDLERS } from './queues/handlers';
import { RECONCILER_STEPS, runReconciler } from './services/reconciler';
import { CREDENTIAL_STEPS } from './services/reconciler-steps';

export { OneTimeCodes } from './objects/one-time-codes';
export { RateCounter } from './objects/rate-counter';

/** Runs `work` with the environment's services and a database pool, closed afterwards. */
async function withServices<T>(
  env: Bindings,
  work: (ctx: Services & { db: ReturnType<typeof createDb> }) => Promise<T>,
): Promise<T> {
  const services = buildServices(env);
  const pool = createPool(services.config.DATABASE_URL, services.config.NEON_WS_PROXY);
  try {
    return await work({ ...services, db: createDb(pool) });
  } finally {
    await pool.end().catch(() => undefined);
  }
}

export default {
  fetch: buildFetch(),

  async queue(batch: MessageBatch<ProvisioningMessage>, env: Bindings): Promise<void> {
    await withServices(env, async (ctx) => {
      if (batch.queue.endsWith('-dlq')) return recordDeadLetters(batch, ctx.db);
      return consumeProvisioning(batch, ctx, PROVISIONING_HANDLERS);
    });
  },

  async scheduled(_controller: ScheduledController, env: Bindings): Promise<void> {
    await withServices(env, (ctx) => runReconciler(ctx, { ...RECONCILER_STEPS, ...CREDENTIAL_STEPS }));
  },
} satisfies ExportedHandler<Bindings, ProvisioningMessage>;
