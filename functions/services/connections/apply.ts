/** Runs a plan: outside work first, then one transaction, then the queue; undone on failure. */
import { type Tx, warmUp } from '../../../db/client';
import { log } from '../../lib/logger';
import { mapLimit } from '../../lib/map-limit';
import { runCredentialCleanup } from '../credentials/cleanup';
import type { CredentialTarget } from '../credentials/connection-credential';
import { enqueueDeliveries, sendInBatches } from '../delivery/deliveries';
import { isNoop, type Plan } from './plan';
import { type ConnectionDeps, type Prepared, prepare } from './prepare';
import { rotationNotStored } from './rotation-failure';
import { storeRotations, type Written, writePlan } from './write';

/** How long a request waits for one credential to go before leaving it to the queue. */
const DROP_NOW_MS = 10_000;

/**
 * Drops the credentials of committed cleanups now, so a disconnected app's credential stops
 * working (its open sessions end) before the request answers; returns the cleanups that did
 * not finish, for the queue.
 */
async function dropNow(deps: CommitDeps, cleanupIds: string[]): Promise<string[]> {
  const failed: string[] = [];
  await mapLimit(cleanupIds, async (cleanupId) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('still running')), DROP_NOW_MS);
    });
    try {
      await Promise.race([runCredentialCleanup(deps.db, deps.config, deps.adapters, cleanupId), late]);
    } catch (err) {
      log.error('dropping a credential at once failed; the queue retries it:', err);
      failed.push(cleanupId);
    } finally {
      clearTimeout(timer);
    }
  });
  return failed;
}

/** What finishing a committed plan needs. */
export type CommitDeps = Pick<ConnectionDeps, 'db' | 'config' | 'adapters' | 'queue'>;

/**
 * Finishes what a committed plan produced: enqueues its live patches and drops the credentials
 * it disconnected at once; a drop that fails is left to the queue (retried with backoff, then
 * the reconciler), as the cleanup rows are already committed.
 */
export async function afterCommit(deps: CommitDeps, written: Written): Promise<void> {
  await enqueueDeliveries(deps.queue, written.deliveryIds);
  const left = await dropNow(deps, written.cleanupIds);
  if (left.length === 0) return;
  try {
    await sendInBatches(
      deps.queue,
      left.map((cleanupId) => ({ type: 'cleanup-credential', cleanupId })),
    );
  } catch (err) {
    log.error('enqueueing credential cleanups failed; the reconciler retries them:', err);
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
    if (prepared.rotated.size === 0) throw err;
    // Rotated logins get their stored secret back; a rotation that cannot be undone is stored instead.
    const rotated = await prepared.unrotate();
    if (rotated.size > 0) {
      await storeRotations(deps.db, deps.config, { ...prepared, rotated }).catch((e: Error) =>
        log.error('storing a rotated credential failed; the reconciler repairs it:', e),
      );
    }
    throw rotationNotStored(err);
  }
  await afterCommit(deps, written);
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
      if (written) await afterCommit(deps, written);
    },
    abort: () => prepared.undo(),
  };
}
