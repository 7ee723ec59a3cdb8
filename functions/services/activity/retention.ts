/**
 * Keeping the Activity record to ACTIVITY_RETENTION_DAYS (default 400): each minute's run
 * removes at most {@link PURGE_BATCH} expired events, oldest first, so a backlog (a lowered
 * retention, a long pause) drains over a few runs instead of one long statement.
 */
import { sql } from 'drizzle-orm';
import { type Queryable, rowsOf } from '../../../db/client';

/** The most events one run removes. */
export const PURGE_BATCH = 5000;

/** Removes up to {@link PURGE_BATCH} events older than `days` days; returns how many went. */
export async function purgeActivity(db: Queryable, days: number): Promise<number> {
  const rows = await rowsOf<{ n: number }>(
    db,
    sql`with gone as (
      delete from activity_events where seq in (
        select seq from activity_events where at < now() - make_interval(days => ${days}::int)
         order by seq limit ${PURGE_BATCH})
      returning 1)
    select count(*)::int as n from gone`,
  );
  return rows[0]?.n ?? 0;
}
