/**
 * The Worker: `fetch` serves the management API and the auth service, `queue` consumes the
 * provisioning queue and its dead-letter queue, `scheduled` runs the minute reconciler.
 */
import { createDb, createPool } from '../db/client';
import { buildApp } from './app';
import type { Bindings } from './env';
import { consumeProvisioning, type Handlers, recordDeadLetters } from './queues/consumer';
import type { ProvisioningMessage } from './queues/messages';
import { buildServices, type Services } from './services/container';
import {
  CREDENTIAL_STEPS,
  cleanupCredentialHandler,
  switchCredentialsHandler,
} from './services/credential-steps';
import { switchLegacyAfterChange } from './services/credential-switch';
import { deliverRuntimePatch } from './services/deliveries';
import { deliverNetworkPolicy, policiesAfterChange } from './services/network-policy';
import { RECONCILER_STEPS, runReconciler } from './services/reconciler';

export { OneTimeCodes } from './objects/one-time-codes';
export { RateCounter } from './objects/rate-counter';

const app = buildApp();

/** Message handlers of the provisioning queue. */
const handlers: Handlers = {
  // Runtime patches; a delivery of another kind is not claimed here and is left to its own sender.
  deliver: async (m, ctx) => {
    await deliverRuntimePatch(ctx.db, ctx.config, ctx.adapters, ctx.receivers, m.deliveryId);
    await deliverNetworkPolicy(ctx.db, ctx.receivers, m.deliveryId);
    await policiesAfterChange(ctx.db, ctx.queue, m.deliveryId);
    // A connection change on a project with legacy sites switches them to their own credentials.
    await switchLegacyAfterChange(
      { db: ctx.db, config: ctx.config, adapters: ctx.adapters, queue: ctx.queue },
      m.deliveryId,
    );
  },
  'cleanup-credential': cleanupCredentialHandler,
  'switch-credentials': switchCredentialsHandler,
};

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
  fetch: app.fetch,

  async queue(batch: MessageBatch<ProvisioningMessage>, env: Bindings): Promise<void> {
    await withServices(env, async (ctx) => {
      if (batch.queue.endsWith('-dlq')) return recordDeadLetters(batch, ctx.db);
      return consumeProvisioning(batch, ctx, handlers);
    });
  },

  async scheduled(_controller: ScheduledController, env: Bindings): Promise<void> {
    await withServices(env, (ctx) => runReconciler(ctx, { ...RECONCILER_STEPS, ...CREDENTIAL_STEPS }));
  },
} satisfies ExportedHandler<Bindings, ProvisioningMessage>;
