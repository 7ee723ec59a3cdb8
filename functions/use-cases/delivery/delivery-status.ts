/**
 * What became of a site's live patches (contract §11): the listing (names, never values), the
 * dead ones the dead-letter queue left, and sending a dead or failed one again.
 */
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx, HttpDb } from '../../../db/client';
import { deliveries } from '../../../db/schema';
import { siteRef } from '../../domain/names';
import type { PatchReason } from '../../domain/patch-reasons';
import { isUuid } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { activityQuery } from '../activity';
import { projectIdOf } from '../caller/api-caller';

type DeliveryRow = typeof deliveries.$inferSelect;

/** A delivery's status as the API shows it: a pending one that failed a try is `failed`. */
export type ShownStatus = 'pending' | 'delivered' | 'live' | 'failed' | 'dead';

/** A delivery as the listing shows it. */
export interface ShownDelivery {
  id: string;
  seq: number | null;
  reason: PatchReason;
  names: string[];
  status: ShownStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  live_at: string | null;
}

/** Marks the live patches among `ids` still pending as `dead` (their message was dead-lettered). */
export async function markDead(db: DbOrTx, ids: readonly string[]): Promise<void> {
  await db
    .update(deliveries)
    .set({ status: 'dead', claimedUntil: null })
    .where(
      and(
        inArray(deliveries.id, [...ids]),
        eq(deliveries.kind, 'runtime_patch'),
        eq(deliveries.status, 'pending'),
      ),
    );
}

/** Site `siteId` (its id or slug) of project `projectRef`, as SQL naming its id (null: none). */
function siteIdSql(projectRef: string, siteId: string): SQL {
  const ref = siteRef(siteId);
  if (ref === null) return sql`null::uuid`;
  const match = 'id' in ref ? sql`s.id = ${ref.id}::uuid` : sql`s.slug = ${ref.slug}`;
  return sql`(select s.id from sites s where s.project_id = ${projectIdOf(projectRef)} and ${match})`;
}

/**
 * The newest `limit` live patches of site `siteId` (id or slug) of project `projectRef`
 * (superseded ones left out), not yet sent.
 */
export function siteDeliveriesQuery(db: HttpDb, projectRef: string, siteId: string, limit: number) {
  return db
    .select()
    .from(deliveries)
    .where(
      and(
        eq(deliveries.kind, 'runtime_patch'),
        sql`${deliveries.targetId} = ${siteIdSql(projectRef, siteId)}`,
        sql`${deliveries.status} <> 'superseded'`,
      ),
    )
    .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
    .limit(limit);
}

/** A delivery row as the listing shows it. */
export function showDelivery(row: DeliveryRow): ShownDelivery {
  const status: ShownStatus =
    row.status === 'pending' && row.lastError !== null
      ? 'failed'
      : row.status === 'superseded'
        ? 'delivered'
        : row.status;
  // A sync names nothing until sent: it carries the whole effective set of that moment.
  const names = [...new Set([...row.setNames, ...row.unsetNames])].sort();
  return {
    id: row.id,
    seq: row.seq,
    reason: row.reason ?? 'connect',
    names,
    status,
    attempts: row.attempts,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    live_at: row.liveAt?.toISOString() ?? null,
  };
}

/**
 * Makes delivery `deliveryId` of site `siteId` pending again if it is dead or failed: 'revived';
 * else what it is ('unknown' for no such delivery of the site). The caller enqueues a revived one.
 */
export async function reviveDelivery(
  ctx: RequestContext,
  { site, deliveryId }: { site: { id: string; projectId: string; slug: string }; deliveryId: string },
): Promise<'revived' | 'unknown' | ShownStatus> {
  const db = ctx.http;
  if (!isUuid(deliveryId)) return 'unknown';
  const id = deliveryId.toLowerCase();
  const retryable = and(
    eq(deliveries.id, id),
    eq(deliveries.kind, 'runtime_patch'),
    eq(deliveries.targetId, site.id),
    sql`(${deliveries.status} = 'dead' or (${deliveries.status} = 'pending' and ${deliveries.lastError} is not null))`,
  );
  const [, revived] = await db.batch([
    // Recorded only for a delivery sent again (placed first, it sees the row as it was).
    activityQuery(
      db,
      ctx.activity,
      {
        action: 'delivery.retry',
        target: { type: 'delivery', id },
        projectId: site.projectId,
        siteId: site.id,
      },
      sql`exists (select 1 from deliveries where ${retryable})`,
    ),
    db
      .update(deliveries)
      .set({ status: 'pending', claimedUntil: null })
      .where(retryable)
      .returning({ id: deliveries.id }),
  ]);
  if (revived.length > 0) return 'revived';
  const [row] = await db
    .select()
    .from(deliveries)
    .where(
      and(eq(deliveries.id, id), eq(deliveries.kind, 'runtime_patch'), eq(deliveries.targetId, site.id)),
    );
  return row ? showDelivery(row).status : 'unknown';
}
