/**
 * Keeping the Activity record to ACTIVITY_RETENTION_DAYS (default 400): each minute's run
 * removes at most {@link PURGE_BATCH} expired events, oldest first and from one day at most,
 * so a backlog (a lowered retention, a long pause) drains over runs instead of one long
 * statement.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../db/client';
import type { JobContext } from '../../request-context';

/** The most events one run removes. */
export const PURGE_BATCH = 5000;

/** Removes up to {@link PURGE_BATCH} events older than `days` days; returns how many went. */
export async function purgeActivity(
  ctx: Pick<JobContext, 'db'>,
  { days }: { days: number },
): Promise<number> {
  const rows = await rowsOf<{ n: number }>(
    ctx.db,
    // One day from the oldest event at a time: a bounded range of the at index, so the plan
    // reads only what it removes however large the record (an open-ended `at < cutoff` is
    // planned, for unknown values, as a third of the table and read by a sequential scan).
    // A backlog drains a day a run.
    sql`with gone as (
      delete from activity_events where seq in (
        select seq from activity_events
         where at >= (select min(at) from activity_events)
           and at < least(now() - make_interval(days => ${days}::int), (select min(at) from activity_events) + interval '1 day')
         order by at limit ${PURGE_BATCH})
      returning 1)
    select count(*)::int as n from gone`,
  );
  return rows[0]?.n ?? 0;
}
