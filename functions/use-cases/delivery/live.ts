/**
 * When a site's change is live where its app runs (docs/contract.md §14): a delivery is live once
 * its target confirmed it, or once a later patch of the same site was confirmed (a later patch
 * carries the names of every earlier one still pending, and a redeploy or restart takes every
 * value already written).
 */
import { and, eq, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { deliveries } from '../../../db/schema';

/**
 * SQL true when delivery `deliveryId` (a uuid value or an expression naming one) is live: it, or a
 * patch of its site recorded at or after it, has the status `live`.
 */
export function deliveryLiveSql(deliveryId: SQL | string): SQL {
  const id = typeof deliveryId === 'string' ? sql`${deliveryId}::uuid` : deliveryId;
  return sql`exists (select 1 from deliveries d join deliveries l
    on l.kind = 'runtime_patch' and l.target_id = d.target_id and l.status = 'live' and l.created_at >= d.created_at
    where d.id = ${id} and d.kind = 'runtime_patch')`;
}

/** Whether the change delivery `deliveryId` carries is live where its site's app runs. */
export async function isDeliveryLive(db: DbOrTx, deliveryId: string): Promise<boolean> {
  const [row] = await db
    .select({ live: sql<boolean>`${deliveryLiveSql(deliveryId)}` })
    .from(sql`(select 1) as one`);
  return row?.live === true;
}

/**
 * The site's patches written (delivered) with a `seq` below `seq`, once a later one is sent: live
 * at `liveAt` when it is (the app took the later values whole), else their follow-ups stop (the
 * later one's redeploy or restart carries their values too, and they become live with it).
 */
export async function settleEarlier(
  db: DbOrTx,
  siteId: string,
  seq: number,
  liveAt: Date | null,
): Promise<void> {
  await db
    .update(deliveries)
    .set(liveAt ? { status: 'live', liveAt, confirmState: null } : { confirmState: null })
    .where(
      and(
        eq(deliveries.kind, 'runtime_patch'),
        eq(deliveries.targetId, siteId),
        eq(deliveries.status, 'delivered'),
        lt(deliveries.seq, seq),
        liveAt ? undefined : sql`${deliveries.confirmState} is not null`,
      ),
    );
}
