/**
 * The minute reconciler (the Worker's `scheduled`): repairs what the queue path missed. Each
 * step runs on its own, so one failing step never stops the others.
 */
import type { Db } from '../../db/client';
import type { Services } from '../container';
import { log } from '../lib/logger';
import { enqueueDeliveries, stalledDeliveries } from './delivery/deliveries';

/** What the reconciler works with: the services and a database. */
export type ReconcilerContext = Services & { db: Db };

/** A repair step; returns how many things it acted on. */
export type ReconcilerStep = (ctx: ReconcilerContext) => Promise<number>;

/** Re-enqueues runtime patches still pending (enqueue failed, message dead-lettered, consumer crashed). */
export const resendRuntimePatches: ReconcilerStep = async ({ db, receivers, queue }) => {
  // Without a platform-wide receiver, patches of sites without a target of their own are kept
  // pending on purpose; resending them would only churn.
  const ids = await stalledDeliveries(db, 'runtime_patch', undefined, undefined, !receivers.runtimePatch);
  await enqueueDeliveries(queue, ids);
  return ids.length;
};

/** Every step, in order. */
export const RECONCILER_STEPS: Record<string, ReconcilerStep> = {
  'resend-runtime-patches': resendRuntimePatches,
};

/** Runs every step; returns what each did (-1 for a step that failed, after logging it). */
export async function runReconciler(
  ctx: ReconcilerContext,
  steps: Record<string, ReconcilerStep> = RECONCILER_STEPS,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, step] of Object.entries(steps)) {
    try {
      out[name] = await step(ctx);
    } catch (err) {
      log.error(`reconciler step ${name} failed:`, err);
      out[name] = -1;
    }
  }
  return out;
}
