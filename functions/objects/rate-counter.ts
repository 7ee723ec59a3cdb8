/**
 * Fixed-window rate counters. One object holds every counter of one scope (for example all
 * per-client counters and the per-app counter of one app's exchange route), so one call checks
 * and counts several limits at once. Counting is exact under concurrency: an object runs one
 * call at a time and reads and writes its SQLite storage synchronously. An alarm removes
 * windows that have ended, so idle counters take no space.
 */
import { DurableObject } from 'cloudflare:workers';

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

export class RateCounter extends DurableObject<object> {
  /** When the alarm is due, as last read or set here; undefined until first read. */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, resets_at INTEGER NOT NULL, count INTEGER NOT NULL)',
    );
  }

  /**
   * Counts one request against every check, all or nothing: if any window is spent the request
   * is refused and counted nowhere, so refused requests never eat another limit's budget.
   */
  async take(checks: RateCheck[], windowMs: number, now = Date.now()): Promise<RateDecision> {
    const sql = this.ctx.storage.sql;
    const windows = checks.map((check) => {
      const row = sql
        .exec<{ resets_at: number; count: number }>(
          'SELECT resets_at, count FROM counters WHERE key = ?',
          check.key,
        )
        .toArray()[0];
      const live = row !== undefined && row.resets_at > now;
      return { ...check, resetsAt: live ? row.resets_at : now + windowMs, count: live ? row.count : 0 };
    });
    const seconds = (at: number) => Math.max(1, Math.ceil((at - now) / 1000));
    const spent = windows.filter((w) => w.count >= w.limit);
    if (spent.length > 0) {
      return { allowed: false, remaining: 0, retryAfter: Math.max(...spent.map((w) => seconds(w.resetsAt))) };
    }
    for (const w of windows) {
      sql.exec(
        'INSERT OR REPLACE INTO counters (key, resets_at, count) VALUES (?, ?, ?)',
        w.key,
        w.resetsAt,
        w.count + 1,
      );
    }
    const soonest = Math.min(...windows.map((w) => w.resetsAt));
    await this.wakeBy(soonest);
    return {
      allowed: true,
      remaining: Math.min(...windows.map((w) => w.limit - w.count - 1)),
      retryAfter: seconds(soonest),
    };
  }

  /** Counts one request against a single `limit` per `windowMs`; refused hits are not counted. */
  hit(limit: number, windowMs: number, now = Date.now()): Promise<RateDecision> {
    return this.take([{ key: '', limit }], windowMs, now);
  }

  /** Makes sure the alarm fires by `at`; the due time is cached so a hit rarely touches the alarm. */
  private async wakeBy(at: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    await this.ctx.storage.setAlarm(at);
  }

  /** Forgets windows that have ended and wakes again for the next one. */
  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM counters WHERE resets_at <= ?', Date.now());
    const next = sql
      .exec<{ at: number | null }>('SELECT MIN(resets_at) AS at FROM counters')
      .toArray()[0]?.at;
    this.alarmAt = next ?? null;
    if (next) await this.ctx.storage.setAlarm(next);
  }
}
