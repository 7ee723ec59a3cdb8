/** Runs a plan: outside work first, then one transaction, then the queue; undone on failure. */
import { type Tx, warmUp } from '../../../db/client';
import type { ProvisioningMessage } from '../../queues/messages';
import type { CredentialTarget } from '../credentials';
import { enqueueDeliveries, sendInBatches } from '../deliveries';
import { isNoop, type Plan } from './plan';
import { type ConnectionDeps, type Prepared, prepare } from './prepare';
import { storeRotations, type Written, writePlan } from './write';

/** Enqueues what a committed plan produced: its live patches and its credential cleanups. */
export async function afterCommit(queue: Queue<ProvisioningMessage>, written: Written): Promise<void> {
  await enqueueDeliveries(queue, written.deliveryIds);
  if (written.cleanupIds.length === 0) return;
  try {
    await sendInBatches(
      queue,
      written.cleanupIds.map((cleanupId) => ({ type: 'cleanup-credential', cleanupId })),
    );
  } catch (err) {
    console.error(
      'enqueueing credential cleanups failed; the reconciler retries them:',
      (err as Error).message,
    );
  }
}

/** Applies `plan` all or nothing; returns the connections it inserted and what it enqueued. */
export async function applyPlan(deps: ConnectionDeps, plan: Plan): Promise<Written> {
  if (isNoop(plan)) return { inserted: [], deliveryIds: [], cleanupIds: [] };
  // The transaction's connection opens while the outside work runs.
  const warm = warmUp(deps.db);
  const prepared = await prepare(deps, plan).finally(() => warm);
  let written: Written;
  try {
    written = await deps.db.transaction((tx) => writePlan(tx, deps.config, prepared));
  } catch (err) {
    await prepared.undo();
    // A rotation cannot be undone: keep the secret the credential now has, or the app loses it.
    if (prepared.rotated.size > 0) {
      await storeRotations(deps.db, deps.config, prepared).catch((e: Error) =>
        console.error('storing a rotated credential failed; rotate again:', e.message),
      );
    }
    throw err;
  }
  await afterCommit(deps.queue, written);
  return written;
}

/**
 * A plan split around a caller's own transaction (a new service and its initial connection
 * are written together): `write` inside it, then `commit` or `abort`.
 */
export interface StagedPlan {
  write(tx: Tx): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** Does the plan's outside work now and stages the rest for the caller's transaction. */
export async function stagePlan(
  deps: ConnectionDeps,
  plan: Plan,
  known: Map<string, CredentialTarget>,
): Promise<StagedPlan> {
  const prepared: Prepared = await prepare(deps, plan, known);
  let written: Written | undefined;
  return {
    async write(tx) {
      written = await writePlan(tx, deps.config, prepared);
    },
    async commit() {
      if (written) await afterCommit(deps.queue, written);
    },
    abort: () => prepared.undo(),
  };
}
