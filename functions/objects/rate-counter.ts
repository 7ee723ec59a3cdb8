/**
 * A fixed-window rate counter. One instance per counted key (for example "exchange:client:<ip>"),
 * so counting is exact under concurrency: a Durable Object runs one call at a time, and the
 * count is read and written synchronously in its SQLite storage.
 */
import { DurableObject } from 'cloudflare:workers';

/** The answer to one hit. */
export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
}

export class RateCounter extends DurableObject<object> {
  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS window (id INTEGER PRIMARY KEY, started_at INTEGER, count INTEGER)',
    );
  }

  /** Counts one request against `limit` per `windowMs`; refused hits are not counted. */
  async hit(limit: number, windowMs: number, now = Date.now()): Promise<RateDecision> {
    const sql = this.ctx.storage.sql;
    const row = sql
      .exec<{ started_at: number; count: number }>('SELECT started_at, count FROM window WHERE id = 1')
      .toArray()[0];
    let startedAt = row?.started_at ?? now;
    let count = row?.count ?? 0;
    if (now - startedAt >= windowMs) {
      startedAt = now;
      count = 0;
    }
    const retryAfter = Math.max(1, Math.ceil((startedAt + windowMs - now) / 1000));
    if (count >= limit) return { allowed: false, remaining: 0, retryAfter };
    count += 1;
    sql.exec('INSERT OR REPLACE INTO window (id, started_at, count) VALUES (1, ?, ?)', startedAt, count);
    if (count === 1) await this.ctx.storage.setAlarm(startedAt + windowMs);
    return { allowed: true, remaining: limit - count, retryAfter };
  }

  /** Forgets the window once it has passed, so idle counters take no space. */
  override async alarm(): Promise<void> {
    this.ctx.storage.sql.exec('DELETE FROM window');
  }
}
