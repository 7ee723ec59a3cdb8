/**
 * Live patches to running apps (contract §6). A change records its patch in the same
 * transaction as the change itself (names only), and after commit enqueues `deliver` with the
 * delivery's id. The consumer derives the values when it sends, so a patch always carries the
 * site's current truth for the names it touches, whatever order copies arrive in.
 */
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { BatchQuery, DbOrTx, Queryable } from '../../../db/client';
import { deliveries } from '../../../db/schema';
import type { PatchReason } from '../../domain/patch-reasons';
import type { ProvisioningMessage } from '../../domain/queue-messages';
import { MAX_RETRY_DELAY_SECONDS, retryDelaySeconds } from '../../lib/backoff';
import { newId } from '../../lib/ids';
import { log } from '../../lib/logger';
import type { JobContext } from '../../request-context';

/** A patch to record: the names it sets and unsets on one site. */
export interface PatchRecord {
  projectId: string;
  siteId: string;
  reason: PatchReason;
  set: readonly string[];
  unset: readonly string[];
}

/** How long a consumer holds a delivery it is sending. */
const CLAIM_SECONDS = 60;

/**
 * The statement recording patches (skipping empty ones), not yet sent, so a write can send it
 * in its batch; null when every patch is empty. `ids` are the new deliveries' ids.
 */
export function patchInsert(
  db: Queryable,
  patches: readonly PatchRecord[],
): { query: BatchQuery | null; ids: string[] } {
  const rows = patches
    .filter((p) => p.set.length > 0 || p.unset.length > 0)
    .map((p) => ({
      id: newId(),
      kind: 'runtime_patch' as const,
      projectId: p.projectId,
      targetId: p.siteId,
      reason: p.reason,
      setNames: [...p.set],
      unsetNames: [...p.unset],
    }));
  if (rows.length === 0) return { query: null, ids: [] };
  return { query: db.insert(deliveries).values(rows), ids: rows.map((r) => r.id) };
}

/** Records patches (skipping empty ones) in one statement; returns the new deliveries' ids. */
export async function recordPatches(tx: DbOrTx, patches: readonly PatchRecord[]): Promise<string[]> {
  const { query, ids } = patchInsert(tx, patches);
  if (query) await query;
  return ids;
}

/** Queues accept at most 100 messages per sendBatch. */
const QUEUE_BATCH = 100;

/** Sends messages in batches the queue accepts. */
export async function sendInBatches(
  ctx: Pick<JobContext, 'queue'>,
  messages: readonly ProvisioningMessage[],
): Promise<void> {
  for (let i = 0; i < messages.length; i += QUEUE_BATCH) {
    await ctx.queue.sendBatch(messages.slice(i, i + QUEUE_BATCH).map((body) => ({ body })));
  }
}

/**
 * Enqueues `deliver` for each delivery. A failure here is logged, not thrown: the change is
 * committed and the minute reconciler re-sends whatever is still pending.
 */
export async function enqueueDeliveries(
  ctx: Pick<JobContext, 'queue'>,
  deliveryIds: readonly string[],
): Promise<void> {
  if (deliveryIds.length === 0) return;
  try {
    await sendInBatches(
      ctx,
      deliveryIds.map((deliveryId) => ({ type: 'deliver', deliveryId })),
    );
  } catch (err) {
    log.error('enqueueing deliveries failed; the reconciler will resend them:', err);
  }
}

type DeliveryRow = typeof deliveries.$inferSelect;

/** What sending a claimed delivery came to: sent (with fields to record) or superseded. */
export type SendOutcome = { sent: true; record?: Partial<DeliveryRow> } | { sent: false; reason: string };

/**
 * The one send path of every delivery kind: claims the delivery for this consumer (unless it is
 * done or another consumer holds it), runs `send`, and records the outcome. A failure releases
 * the claim and rethrows, so the queue retries with backoff.
 */
export async function sendClaimed(
  db: DbOrTx,
  deliveryId: string,
  kind: DeliveryRow['kind'],
  send: (row: DeliveryRow) => Promise<SendOutcome>,
): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .update(deliveries)
    .set({
      claimedUntil: sql`now() + make_interval(secs => ${CLAIM_SECONDS})`,
      attempts: sql`${deliveries.attempts} + 1`,
      lastAttemptAt: sql`now()`,
    })
    .where(
      and(
        eq(deliveries.id, deliveryId),
        eq(deliveries.kind, kind),
        eq(deliveries.status, 'pending'),
        or(isNull(deliveries.claimedUntil), lt(deliveries.claimedUntil, sql`now()`)),
      ),
    )
    .returning();
  if (!row) return undefined;
  let outcome: SendOutcome;
  try {
    outcome = await send(row);
  } catch (err) {
    // The queue retries the message after its backoff (the row's attempts standing for the message's).
    await db
      .update(deliveries)
      .set({
        claimedUntil: null,
        lastError: (err as Error).message.slice(0, 500),
        requeueAfter: requeueAfterSql(kind, retryDelaySeconds(row.attempts)),
      })
      .where(eq(deliveries.id, row.id));
    throw err;
  }
  await db
    .update(deliveries)
    .set(
      outcome.sent
        ? {
            status: 'delivered',
            deliveredAt: new Date(),
            claimedUntil: null,
            lastError: null,
            ...outcome.record,
          }
        : { status: 'superseded', claimedUntil: null, lastError: outcome.reason },
    )
    .where(eq(deliveries.id, row.id));
  return row;
}

/** The deliveries of `row`'s kind to its target still pending that were recorded before it. */
export function olderPending(row: Pick<DeliveryRow, 'kind' | 'targetId' | 'createdAt'>) {
  return and(
    eq(deliveries.kind, row.kind),
    eq(deliveries.targetId, row.targetId),
    eq(deliveries.status, 'pending'),
    lt(deliveries.createdAt, row.createdAt),
  );
}

/** A delivery nobody touched for this long past its retry backoff is sent again by the reconciler. */
export const STALLED_AFTER_SECONDS = 30;

/**
 * How long past its due time a queue message may still stand for a pending delivery of `kind`
 * before the reconciler counts it lost: a live patch's message may wait behind others (a backlog
 * drains in seconds, docs/contract.md §14), so two minutes; a network policy keeps its 30 s, for
 * it converges within two minutes (contract §6).
 */
export const queueLeaseSeconds = (kind: DeliveryRow['kind']): number =>
  kind === 'runtime_patch' ? 120 : STALLED_AFTER_SECONDS;

/** SQL for when a message sent now after `delaySeconds` stops standing for a delivery of `kind`. */
export const requeueAfterSql = (kind: DeliveryRow['kind'], delaySeconds: number) =>
  sql`now() + make_interval(secs => ${Math.ceil(delaySeconds) + queueLeaseSeconds(kind)})`;

/**
 * Pending deliveries of `kind` whose queue message is lost: nobody holds them, and no message
 * stands for them any more: `requeue_after` (set whenever a message is sent, retried or deferred
 * for one) has passed, or, before any was recorded, the lease has passed since it was made or
 * since the backoff its last try's retry waits (lib/backoff.ts `retryDelaySeconds`, the row's
 * attempts standing for the message's). A delivery still in the queue, deferred, or in flight
 * is left to its message, so nothing is doubled; one whose message was lost, or dead-lettered
 * after its last retry, is picked up (a live patch dead-lettered is `dead` instead, and waits for
 * a retry by hand). `onlyTargeted`: only sites with a delivery target.
 */
export async function stalledDeliveries(
  db: DbOrTx,
  kind: DeliveryRow['kind'],
  limit = 500,
  onlyTargeted = false,
): Promise<string[]> {
  const backoff = sql`least(${MAX_RETRY_DELAY_SECONDS}, power(2, greatest(1, ${deliveries.attempts})))`;
  const lease = queueLeaseSeconds(kind);
  const rows = await db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(
      and(
        eq(deliveries.kind, kind),
        eq(deliveries.status, 'pending'),
        or(isNull(deliveries.claimedUntil), lt(deliveries.claimedUntil, sql`now()`)),
        lt(
          sql`coalesce(${deliveries.requeueAfter}, greatest(${deliveries.createdAt}, ${deliveries.lastAttemptAt} + make_interval(secs => ${backoff})) + make_interval(secs => ${lease}))`,
          sql`now()`,
        ),
        // Without a platform-wide receiver only sites with a target of their own can be sent to.
        onlyTargeted
          ? sql`exists (select 1 from site_targets t where t.site_id = ${deliveries.targetId})`
          : undefined,
      ),
    )
    .orderBy(deliveries.createdAt)
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Re-sends the `deliver` messages of `ids` (deliveries of `kind` found lost), recording that a
 * message stands for each again, so the next tick leaves them to it.
 */
export async function requeueLost(
  ctx: Pick<JobContext, 'queue' | 'db'>,
  kind: DeliveryRow['kind'],
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await ctx.db
    .update(deliveries)
    .set({ requeueAfter: requeueAfterSql(kind, 0) })
    .where(and(inArray(deliveries.id, [...ids]), eq(deliveries.status, 'pending')));
  await enqueueDeliveries(ctx, ids);
}

/** Deliveries by id (tests and the reconciler read them back). */
export function readDeliveries(db: DbOrTx, ids: readonly string[]): Promise<DeliveryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select()
    .from(deliveries)
    .where(inArray(deliveries.id, [...ids]));
}
