/**
 * The reconciler's own record: each step's and sweep's cursor, last run, last success and
 * failures in a row; a sweep's `lap_started_at` is when its current lap began (reconciler_state), and the items waiting out a failure
 * (reconcile_failures). A tick reads the cursors once and writes every outcome in one
 * statement; `/healthz` detail reads the same rows, so a stuck or failing reconciler shows.
 */
import { asc, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { reconcileFailures, reconcilerState } from '../../../db/schema';

/** A step or sweep is stale when it has not succeeded for this long (five missed minute ticks). */
export const STALE_AFTER_MS = 5 * 60_000;

/** One step's outcome at a tick. */
export interface StepOutcome {
  name: string;
  ok: boolean;
  count: number;
  error?: string;
  /** A sweep's position after this tick (undefined: unchanged; null: the lap ended). */
  cursor?: string | null;
}

/** The cursor of every sweep, by name. */
export async function readCursors(db: DbOrTx): Promise<Map<string, string | null>> {
  const rows = await db
    .select({ name: reconcilerState.name, cursor: reconcilerState.cursor })
    .from(reconcilerState);
  return new Map(rows.map((r) => [r.name, r.cursor]));
}

/** Writes every step's outcome of one tick, the tick's own row included, in one statement. */
export async function recordOutcomes(db: DbOrTx, outcomes: readonly StepOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const json = JSON.stringify(
    outcomes.map((o) => ({
      name: o.name,
      ok: o.ok,
      count: o.count,
      error: o.error?.slice(0, 500) ?? null,
      set_cursor: o.cursor !== undefined,
      cursor: o.cursor ?? null,
    })),
  );
  // One statement: update the steps seen before, insert the new ones.
  await db.execute(sql`
    with x as (
      select * from jsonb_to_recordset(${json}::jsonb)
        as x(name text, ok boolean, count int, error text, set_cursor boolean, cursor text)),
    up as (
      update reconciler_state s set
        cursor = case when x.set_cursor then x.cursor else s.cursor end,
        lap_started_at = case when x.set_cursor and x.cursor is null then now() else s.lap_started_at end,
        last_run_at = now(),
        last_ok_at = case when x.ok then now() else s.last_ok_at end,
        failures = case when x.ok then 0 else s.failures + 1 end,
        last_error = x.error,
        last_count = x.count
      from x where s.name = x.name
      returning s.name)
    insert into reconciler_state (name, cursor, lap_started_at, last_run_at, last_ok_at, failures, last_error, last_count)
    select x.name, x.cursor, case when x.set_cursor and x.cursor is null then now() end, now(),
           case when x.ok then now() end, case when x.ok then 0 else 1 end, x.error, x.count
      from x where x.name not in (select name from up)
    on conflict (name) do nothing`);
}

/** The reconciler's health as `/healthz` detail shows it. */
export interface ReconcilerHealth {
  ok: boolean;
  last_tick_at: string | null;
  steps: Array<{
    name: string;
    ok: boolean;
    last_run_at: string | null;
    last_ok_at: string | null;
    failures: number;
    last_error: string | null;
    last_count: number;
  }>;
  failing_items: Array<{
    step: string;
    item_id: string;
    attempts: number;
    last_error: string | null;
    retry_at: string;
  }>;
  failing_items_total: number;
  marks_waiting: number;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Reads the reconciler's health: not ok when the tick has not run for {@link STALE_AFTER_MS},
 * or a step has not succeeded for as long.
 */
export async function reconcilerHealth({ db }: { db: DbOrTx }, now = Date.now()): Promise<ReconcilerHealth> {
  const [states, failures, counts] = await Promise.all([
    db.select().from(reconcilerState).orderBy(asc(reconcilerState.name)),
    db.select().from(reconcileFailures).orderBy(asc(reconcileFailures.firstFailedAt)).limit(50),
    db.execute<{ failing: number; marks: number }>(
      sql`select (select count(*)::int from reconcile_failures) as failing,
                 (select count(*)::int from reconcile_marks) as marks`,
    ),
  ]);
  const stale = (d: Date | null) => d === null || now - d.getTime() > STALE_AFTER_MS;
  const steps = states.map((s) => ({
    name: s.name,
    ok: !(s.failures > 0 && stale(s.lastOkAt)),
    last_run_at: iso(s.lastRunAt),
    last_ok_at: iso(s.lastOkAt),
    failures: s.failures,
    last_error: s.lastError,
    last_count: s.lastCount,
  }));
  const tick = states.find((s) => s.name === 'tick');
  return {
    ok: !stale(tick?.lastRunAt ?? null) && steps.every((s) => s.ok),
    last_tick_at: iso(tick?.lastRunAt ?? null),
    steps,
    failing_items: failures.map((f) => ({
      step: f.step,
      item_id: f.itemId,
      attempts: f.attempts,
      last_error: f.lastError,
      retry_at: f.retryAt.toISOString(),
    })),
    failing_items_total: counts.rows[0]?.failing ?? 0,
    marks_waiting: counts.rows[0]?.marks ?? 0,
  };
}
