/**
 * Fixed-window counters kept in a Durable Object's SQLite storage, shared by the objects that
 * count requests (RateCounter, and OneTimeCodes for the code exchange). Every function runs
 * synchronously inside one object call, so counting is exact under any concurrency.
 */

/** The answer to one hit. */
export interface RateDecision {
  allowed: boolean;
  /** Requests left in the tightest window (after this one when allowed). */
  remaining: number;
  /** Seconds until the refusing window (or, when allowed, the soonest window) resets: Retry-After. */
  retryAfter: number;
}

/** One limit to check: `limit` requests per window under `key`. */
export interface RateCheck {
  key: string;
  limit: number;
}

/** Creates the counters table if the object has none yet. */
export function createCounters(sql: SqlStorage): void {
  sql.exec(
    'CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, resets_at INTEGER NOT NULL, count INTEGER NOT NULL)',
  );
}

/**
 * Counts one request against every check, all or nothing: if any window is spent the request
 * is refused and counted nowhere, so refused requests never eat another limit's budget.
 * `resetsAt` is the soonest end of a window this call counted in (to wake the sweep by).
 */
export function countHit(
  sql: SqlStorage,
  checks: RateCheck[],
  windowMs: number,
  now: number,
): RateDecision & { resetsAt: number } {
  // One read and one write for all the checks, whatever their number.
  const keys = checks.map((check) => check.key);
  const marks = keys.map(() => '?').join(', ');
  const rows = new Map(
    sql
      .exec<{ key: string; resets_at: number; count: number }>(
        `SELECT key, resets_at, count FROM counters WHERE key IN (${marks})`,
        ...keys,
      )
      .toArray()
      .map((row) => [row.key, row]),
  );
  const windows = checks.map((check) => {
    const row = rows.get(check.key);
    const live = row !== undefined && row.resets_at > now;
    return { ...check, resetsAt: live ? row.resets_at : now + windowMs, count: live ? row.count : 0 };
  });
  const seconds = (at: number) => Math.max(1, Math.ceil((at - now) / 1000));
  const spent = windows.filter((w) => w.count >= w.limit);
  if (spent.length > 0) {
    const resetsAt = Math.max(...spent.map((w) => w.resetsAt));
    return { allowed: false, remaining: 0, retryAfter: seconds(resetsAt), resetsAt };
  }
  if (windows.length > 0) {
    sql.exec(
      `INSERT OR REPLACE INTO counters (key, resets_at, count) VALUES ${windows.map(() => '(?, ?, ?)').join(', ')}`,
      ...windows.flatMap((w) => [w.key, w.resetsAt, w.count + 1]),
    );
  }
  const resetsAt = Math.min(...windows.map((w) => w.resetsAt));
  return {
    allowed: true,
    remaining: Math.min(...windows.map((w) => w.limit - w.count - 1)),
    retryAfter: seconds(resetsAt),
    resetsAt,
  };
}

/** Forgets windows that ended by `now`; returns when the next one ends, or null if none is left. */
export function sweepCounters(sql: SqlStorage, now: number): number | null {
  sql.exec('DELETE FROM counters WHERE resets_at <= ?', now);
  return (
    sql.exec<{ at: number | null }>('SELECT MIN(resets_at) AS at FROM counters').toArray()[0]?.at ?? null
  );
}
