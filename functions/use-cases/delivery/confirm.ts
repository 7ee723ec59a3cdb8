/**
 * The way from `delivered` to `live` on a target that confirms later (docs/contract.md §14: a
 * Vercel redeploy waited to READY, Fly Machines restarted one at a time): the delivery keeps the
 * step it is at (`confirm_state`: the target's type and its adapter's state), and a delayed
 * `confirm-live` message takes one step at a time, so no Worker waits on a platform. A step that
 * fails keeps the delivery `delivered` with its error in `last_error` and is retried with the
 * queue's backoff; dead-lettered, the delivery is `dead` and `Retry` sends it whole again.
 */
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { deliveries } from '../../../db/schema';
import { FollowUpFailed } from '../../adapters/targets';
import { MAX_RETRY_DELAY_SECONDS } from '../../lib/backoff';
import { log } from '../../lib/logger';
import type { JobContext } from '../../request-context';
import { STALLED_AFTER_SECONDS } from './deliveries';
import { settleEarlier } from './live';
import { DEFER_SECONDS, SiteBusy } from './site-hold';
import { siteTarget } from './targets';

/** What `confirm_state` holds: the target type the step belongs to, and the adapter's step. */
interface ConfirmState {
  type: string;
  step: unknown;
}

/** How long a consumer holds a delivery while it takes a step. */
const CLAIM_SECONDS = 60;

/** The `confirm_state` of a delivery whose target of `type` answered `step` to follow. */
export const confirmState = (type: string, step: unknown): ConfirmState => ({ type, step });

/**
 * Enqueues the next step of delivery `deliveryId` after `delaySeconds`. A failure is logged, not
 * thrown: the reconciler re-sends a follow-up nobody took (stalledConfirmations).
 */
export async function enqueueConfirm(
  ctx: Pick<JobContext, 'queue'>,
  deliveryId: string,
  delaySeconds: number,
): Promise<void> {
  try {
    await ctx.queue.send(
      { type: 'confirm-live', deliveryId },
      delaySeconds > 0 ? { delaySeconds: Math.ceil(delaySeconds) } : undefined,
    );
  } catch (err) {
    log.error('enqueueing a delivery follow-up failed; the reconciler will resend it:', err);
  }
}

/**
 * Takes the next step of delivery `deliveryId` toward live (the `confirm-live` handler). Left alone
 * when it is live already or has no step left (a later patch took over); deferred (SiteBusy) while
 * another consumer takes the step; its step cleared when the site's target is no longer the one it belongs to. Throws to have
 * the queue retry the step with backoff.
 */
export async function confirmDelivery(ctx: JobContext, deliveryId: string): Promise<void> {
  const { db } = ctx;
  const following = and(
    eq(deliveries.id, deliveryId),
    eq(deliveries.kind, 'runtime_patch'),
    eq(deliveries.status, 'delivered'),
    sql`${deliveries.confirmState} is not null`,
  );
  const [row] = await db
    .update(deliveries)
    .set({ claimedUntil: sql`now() + make_interval(secs => ${CLAIM_SECONDS})`, lastAttemptAt: sql`now()` })
    .where(and(following, or(isNull(deliveries.claimedUntil), lt(deliveries.claimedUntil, sql`now()`))))
    .returning();
  if (!row) {
    // Another consumer is taking this step: a step past its batch's budget runs on (queues/consumer.ts)
    // and this copy is its retry, so it waits for it rather than going away.
    const [held] = await db
      .select({ id: deliveries.id })
      .from(deliveries)
      .where(and(following, sql`${deliveries.claimedUntil} > now()`));
    if (held) throw new SiteBusy(DEFER_SECONDS);
    return;
  }
  const state = row.confirmState as ConfirmState;
  const target = await siteTarget(db, ctx.config, row.targetId);
  if (!target?.adapter.confirm || target.adapter.type !== state.type) {
    await db
      .update(deliveries)
      .set({ confirmState: null, claimedUntil: null })
      .where(eq(deliveries.id, row.id));
    return;
  }
  let outcome: Awaited<ReturnType<NonNullable<typeof target.adapter.confirm>>>;
  try {
    outcome = await target.adapter.confirm(ctx.receivers.platforms, target.stored, state.step);
  } catch (err) {
    const restart =
      err instanceof FollowUpFailed ? { confirmState: confirmState(state.type, err.restart) } : {};
    await db
      .update(deliveries)
      .set({ claimedUntil: null, lastError: (err as Error).message.slice(0, 500), ...restart })
      .where(and(following));
    throw err;
  }
  if (outcome.live) {
    const now = ctx.clock.now();
    await db
      .update(deliveries)
      .set({ status: 'live', liveAt: now, confirmState: null, claimedUntil: null, lastError: null })
      .where(following);
    if (row.seq !== null) await settleEarlier(db, row.targetId, row.seq, now);
    return;
  }
  const [moved] = await db
    .update(deliveries)
    .set({ confirmState: confirmState(state.type, outcome.next.state), claimedUntil: null, lastError: null })
    .where(following)
    .returning({ id: deliveries.id });
  // Cleared while this step ran (a later patch took over): its chain ends here.
  if (moved) await enqueueConfirm(ctx, row.id, outcome.next.delaySeconds);
}

/**
 * Deliveries with a step left that nobody took for longer than any step's delay or retry
 * backoff (their message was lost, or could not be enqueued): the reconciler enqueues them again.
 */
export async function stalledConfirmations(db: DbOrTx, limit = 200): Promise<string[]> {
  const idle = MAX_RETRY_DELAY_SECONDS + STALLED_AFTER_SECONDS;
  const rows = await db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(
      and(
        sql`${deliveries.confirmState} is not null`,
        eq(deliveries.status, 'delivered'),
        or(isNull(deliveries.claimedUntil), lt(deliveries.claimedUntil, sql`now()`)),
        lt(deliveries.lastAttemptAt, sql`now() - make_interval(secs => ${idle})`),
      ),
    )
    .orderBy(deliveries.lastAttemptAt)
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Marks deliveries among `ids` still following up as `dead` (their step's message was dead-lettered). */
export async function markFollowUpsDead(db: DbOrTx, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(deliveries)
    .set({ status: 'dead', confirmState: null, claimedUntil: null })
    .where(
      and(
        inArray(deliveries.id, [...ids]),
        eq(deliveries.status, 'delivered'),
        sql`${deliveries.confirmState} is not null`,
      ),
    );
}
