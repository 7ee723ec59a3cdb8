/**
 * Per-item isolation for reconciler steps: items run side by side (a few at a time), each with
 * its own deadline, so one item a tenant can stall (a lock held on its role, a provider that
 * never answers) costs the run at most one deadline and never the others their turn. A failed
 * item is recorded in reconcile_failures with its error and retried after a backoff; until then
 * the step's query leaves it out ({@link notBackingOff}), so failing items cannot fill a batch.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { log } from '../../lib/logger';
import { mapLimit } from '../../lib/map-limit';

/** How many items of one step run at once. */
export const ITEMS_PARALLEL = 4;
/** Longest one item may take before the run records it as failed and moves on. */
export const ITEM_DEADLINE_MS = 8_000;
/** Backoff of a failed item: 30 s doubling per attempt, at most an hour. */
const RETRY_SQL = sql.raw(`now() + make_interval(secs => least(3600, 30 * power(2, least(f.attempts, 12))))`);

/** A filter for a step's query: the item whose id is `id` is not waiting out a failure's backoff. */
export function notBackingOff(step: string, id: SQL): SQL {
  return sql`not exists (select 1 from reconcile_failures f
    where f.step = ${step} and f.item_id = (${id})::text and f.retry_at > now())`;
}

/** What {@link runItems} did. */
export interface ItemsOutcome {
  /** Items whose work returned true (acted on). */
  acted: number;
  /** Items that failed or timed out (recorded, retried later). */
  failed: number;
}

class ItemDeadline extends Error {}

/** An item's error for the record: its message and its cause's (a driver's or provider's words). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

/** Runs `work` but gives up waiting after `ms` (the work itself may still finish later). */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ItemDeadline(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Records failures (attempts counted, retry after a backoff) and clears the successes' old failures. */
async function recordOutcomes(
  db: DbOrTx,
  step: string,
  failed: Array<{ id: string; error: string }>,
  succeeded: string[],
): Promise<void> {
  if (failed.length > 0) {
    await db.execute(
      sql`insert into reconcile_failures as f (step, item_id, attempts, last_error, retry_at)
      select ${step}, x.id, 1, x.error, now() + interval '30 seconds'
        from unnest(${sql.param(failed.map((f) => f.id))}::text[], ${sql.param(failed.map((f) => f.error))}::text[]) as x(id, error)
      on conflict (step, item_id) do update
        set attempts = f.attempts + 1, last_error = excluded.last_error, retry_at = ${RETRY_SQL}`,
    );
  }
  if (succeeded.length > 0) {
    await db.execute(
      sql`delete from reconcile_failures where step = ${step} and item_id = any(${sql.param(succeeded)}::text[])`,
    );
  }
}

/**
 * Runs `work` for every item, {@link ITEMS_PARALLEL} at a time, each within `deadlineMs`;
 * records each failure and clears the failures of items that now succeed. Never throws for an
 * item's failure.
 */
export async function runItems<T>(
  db: DbOrTx,
  step: string,
  items: readonly T[],
  idOf: (item: T) => string,
  work: (item: T) => Promise<boolean>,
  opts: { parallel?: number; deadlineMs?: number } = {},
): Promise<ItemsOutcome> {
  const failed: Array<{ id: string; error: string }> = [];
  const succeeded: string[] = [];
  let acted = 0;
  await mapLimit(
    items,
    async (item) => {
      const id = idOf(item);
      try {
        if (await withDeadline(work(item), opts.deadlineMs ?? ITEM_DEADLINE_MS)) acted++;
        succeeded.push(id);
      } catch (err) {
        const error = describe(err).slice(0, 500);
        log.error(`reconciler ${step}: item ${id} failed; retried later:`, error);
        failed.push({ id, error });
      }
    },
    opts.parallel ?? ITEMS_PARALLEL,
  );
  await recordOutcomes(db, step, failed, succeeded);
  return { acted, failed: failed.length };
}
