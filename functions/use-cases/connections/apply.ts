/** Runs a plan: outside work first, then one guarded write, then the queue; undone on failure. */

import type { ProvisioningMessage } from '../../domain/queue-messages';
import { mapLimit } from '../../lib/map-limit';
import type { JobContext, RequestContext } from '../../request-context';
import { dropCleanupCredential, recordCleanupFailure, runCredentialCleanup } from '../credentials/cleanup';
import type { CredentialTarget } from '../credentials/connection-credential';
import { enqueueDeliveries, sendInBatches } from '../delivery/deliveries';
import { isNoop, type Plan } from './plan';
import { prepare } from './prepare';
import { rotationNotStored } from './rotation-failure';
import { type SiteStates, writeGuarded } from './versioned-write';
import { type CleanupRef, nothingWritten, storeRotations, type Written } from './write';

/** How long a request waits for one credential to go before leaving it to the queue. */
const DROP_NOW_MS = 10_000;

/** Runs `work`, failing it once it has run longer than {@link DROP_NOW_MS}. */
async function withinDropTime(work: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('still running')), DROP_NOW_MS);
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Drops the credentials of committed cleanups now, so a disconnected app's credential stops
 * working (its open sessions end) before the request answers. A credential whose service the
 * request read already (`targets`) is dropped with no metadata read, its row left for the queue
 * to mark done; any other goes through its cleanup row. Returns the messages that finish the job.
 */
async function dropNow(
  ctx: JobContext,
  cleanups: readonly CleanupRef[],
  targets: ReadonlyMap<string, CredentialTarget>,
): Promise<ProvisioningMessage[]> {
  const messages: ProvisioningMessage[] = [];
  await mapLimit(cleanups, async (cleanup) => {
    const target = targets.get(cleanup.resourceId);
    try {
      if (target) {
        await withinDropTime(dropCleanupCredential(ctx, { target, credentialName: cleanup.credentialName }));
        messages.push({ type: 'credential-dropped', cleanupId: cleanup.id });
      } else {
        await withinDropTime(runCredentialCleanup(ctx, cleanup.id));
      }
    } catch (err) {
      ctx.log.error('dropping a credential at once failed; the queue retries it:', err);
      // Counted now (a failure's extra round trip): the row shows the attempt even if the message is lost.
      if (target)
        await recordCleanupFailure(ctx.db, cleanup.id, err as Error).catch((e: Error) =>
          ctx.log.error('counting a failed credential drop failed:', e),
        );
      messages.push({ type: 'cleanup-credential', cleanupId: cleanup.id });
    }
  });
  return messages;
}

/**
 * Finishes what a committed plan produced: enqueues its live patches and drops the credentials
 * it disconnected at once; a drop that fails is left to the queue (retried with backoff, then
 * the reconciler), as the cleanup rows are already committed. `targets` are services the
 * request has read (their credentials are dropped without reading them again).
 */
export async function afterCommit(
  ctx: JobContext,
  written: Written,
  targets: ReadonlyMap<string, CredentialTarget> = new Map(),
): Promise<void> {
  await enqueueDeliveries(ctx, written.deliveryIds);
  const messages = await dropNow(ctx, written.cleanups, targets);
  if (messages.length === 0) return;
  try {
    await sendInBatches(ctx, messages);
  } catch (err) {
    ctx.log.error('enqueueing credential cleanups failed; the reconciler retries them:', err);
  }
}

/** What a write read with its plan, in the same round trip as the caller: the sites' states and the services' rows. */
export interface WriteRead {
  states: SiteStates;
  /** Database and bucket rows by id, for credential work (those not here are read when needed). */
  targets: ReadonlyMap<string, CredentialTarget>;
  /** The stored secrets of the connections a rotate changes, by connection id (read when absent). */
  stored?: ReadonlyMap<string, string>;
}

/**
 * Applies `plan` all or nothing: the outside work, then one guarded batch (guarded-write.ts),
 * then the queue; the outside work is undone when the batch fails. Returns what it wrote.
 */
export async function applyPlan(ctx: RequestContext, plan: Plan, read: WriteRead): Promise<Written> {
  if (isNoop(plan)) return nothingWritten();
  const prepared = await prepare(ctx, plan, read.targets, read.stored);
  let written: Written;
  try {
    written = await writeGuarded(ctx.http, ctx.config, prepared, read.states);
  } catch (err) {
    if (prepared.rotated.size === 0) {
      await prepared.undo();
      throw err;
    }
    // Rotated logins get their stored secret back (a held one first lets its database's lock go,
    // which the undo may need); a rotation that cannot be undone is stored instead.
    const rotated = await prepared.unrotate();
    await prepared.undo();
    if (rotated.size > 0) {
      await storeRotations(ctx.http, ctx.config, { ...prepared, rotated }).catch((e: Error) =>
        ctx.log.error('storing a rotated credential failed; the reconciler repairs it:', e),
      );
    }
    throw rotationNotStored(err);
  }
  await prepared.commitRotations();
  await afterCommit(ctx, written, read.targets);
  return written;
}
