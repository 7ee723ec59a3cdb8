/**
 * The Worker: `fetch` serves the management API and the auth service, `queue` consumes the
 * provisioning queue and its dead-letter queue, `scheduled` runs the minute reconciler.
 */
import { createDb, createPool } from '../db/client';
import { buildAdapters } from './adapters';
import { buildApp } from './app';
import { type Bindings, loadConfig } from './env';
import { consumeProvisioning, type Handlers, recordDeadLetters } from './queues/consumer';
import type { ProvisioningMessage } from './queues/messages';
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
    await deliverRuntimePatch(ctx.db, ctx.config, buildAdapters(ctx.config), m.deliveryId);
    await deliverNetworkPolicy(ctx.db, ctx.config, m.deliveryId);
    await policiesAfterChange(ctx.db, ctx.env.PROVISIONING, m.deliveryId);
    // A connection change on a project with legacy sites switches them to their own credentials.
    await switchLegacyAfterChange(
      { db: ctx.db, config: ctx.config, adapters: buildAdapters(ctx.config), queue: ctx.env.PROVISIONING },
      m.deliveryId,
    );
  },
  'cleanup-credential': cleanupCredentialHandler,
  'switch-credentials': switchCredentialsHandler,
};

async function withDb<T>(env: Bindings, work: (db: ReturnType<typeof createDb>) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const pool = createPool(config.DATABASE_URL, config.NEON_WS_PROXY);
  try {
    return await work(createDb(pool));
  } finally {
    await pool.end().catch(() => undefined);
  }
}

export default {
  fetch: app.fetch,

  async queue(batch: MessageBatch<ProvisioningMessage>, env: Bindings): Promise<void> {
    await withDb(env, async (db) => {
      if (batch.queue.endsWith('-dlq')) return recordDeadLetters(batch, db);
      return consumeProvisioning(batch, { db, config: loadConfig(env), env }, handlers);
    });
  },

  async scheduled(_controller: ScheduledController, env: Bindings): Promise<void> {
    const config = loadConfig(env);
    await withDb(env, (db) =>
      runReconciler({ db, config, queue: env.PROVISIONING }, { ...RECONCILER_STEPS, ...CREDENTIAL_STEPS }),
    );
  },
} satisfies ExportedHandler<Bindings, ProvisioningMessage>;
