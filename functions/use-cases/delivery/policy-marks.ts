/**
 * The network-policy side of the reconciler, driven by what changed: a trigger marks a database
 * (reconcile_marks, kind 'policy') in the same transaction as any change to its connections,
 * its principals or its deletion. Each tick takes the oldest marks, a bounded batch, records a
 * policy delivery for those whose desired set differs from the acknowledged one, and removes
 * each mark once its database has nothing pending and nothing changed since the mark was read
 * (its `seq`); a mark whose database still has a delivery in flight goes to the back of the line,
 * so an acknowledgement of an older set is checked again. The slow sweep (sweep.ts) checks every
 * database's policy once a lap besides.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import type { JobContext } from '../../request-context';
import { enqueueDeliveries, requeueLost, stalledDeliveries } from './deliveries';
import { recordPolicyDrift } from './network-policy';

/** How many marked databases one tick checks (one statement each way, whatever the batch). */
export const POLICY_MARKS_BATCH = 500;

/** Takes up to `limit` marks oldest first, records the policies due, settles the marks; returns the new deliveries' ids. */
export async function settlePolicyMarks(db: DbOrTx, limit = POLICY_MARKS_BATCH): Promise<string[]> {
  const marks = await db.execute<{ target_id: string; seq: string }>(sql`
    select target_id, seq::text as seq from reconcile_marks
     where kind = 'policy' order by marked_at limit ${limit}`);
  if (marks.rows.length === 0) return [];
  const ids = marks.rows.map((m) => m.target_id);
  const fresh = await recordPolicyDrift(db, ids);
  const read = JSON.stringify(marks.rows);
  // A mark whose row changed since it was read (another seq) stays as it is: that change is checked next tick.
  await db.execute(sql`
    with read as (select * from jsonb_to_recordset(${read}::jsonb) as r(target_id uuid, seq bigint)),
    gone as (
      delete from reconcile_marks m using read r
       where m.kind = 'policy' and m.target_id = r.target_id and m.seq = r.seq
         and not exists (select 1 from deliveries p where p.kind = 'network_policy'
                          and p.target_id = m.target_id and p.status = 'pending')
      returning m.target_id)
    update reconcile_marks m set marked_at = now()
      from read r
     where m.kind = 'policy' and m.target_id = r.target_id and m.seq = r.seq
       and m.target_id not in (select target_id from gone)`);
  return fresh;
}

/** The reconciler step: settles marks, then sends what is due and re-sends stalled policies. */
export async function reconcilePolicyMarks(ctx: JobContext): Promise<number> {
  const { db, receivers } = ctx;
  const fresh = await settlePolicyMarks(db);
  // Without a receiver they are kept pending (CONTRACT §1).
  if (!receivers.networkPolicy) return fresh.length;
  const stalled = await stalledDeliveries(db, 'network_policy', 200);
  await enqueueDeliveries(ctx, fresh);
  await requeueLost(ctx, 'network_policy', stalled);
  const pending = [...fresh, ...stalled];
  return pending.length;
}
