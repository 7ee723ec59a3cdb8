/**
 * Single-use, short-lived records (one-time codes, provider sign-in state). Only a hash of the
 * code is the key; redeeming deletes the record in the same synchronous step that reads it, so
 * of any number of concurrent redemptions exactly one succeeds. An alarm removes expired rows.
 */
import { DurableObject } from 'cloudflare:workers';

export class OneTimeCodes extends DurableObject<object> {
  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS codes (hash TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL)',
    );
  }

  /** Stores `value` under `hash` for `ttlMs`. */
  async issue(hash: string, value: string, ttlMs: number): Promise<void> {
    const expiresAt = Date.now() + ttlMs;
    this.ctx.storage.sql.exec(
      'INSERT OR REPLACE INTO codes (hash, value, expires_at) VALUES (?, ?, ?)',
      hash,
      value,
      expiresAt,
    );
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > expiresAt) await this.ctx.storage.setAlarm(expiresAt);
  }

  /** Takes the record once: returns its value and deletes it, or null if unknown or expired. */
  async redeem(hash: string): Promise<string | null> {
    const rows = this.ctx.storage.sql
      .exec<{ value: string; expires_at: number }>(
        'DELETE FROM codes WHERE hash = ? RETURNING value, expires_at',
        hash,
      )
      .toArray();
    const row = rows[0];
    if (!row || row.expires_at <= Date.now()) return null;
    return row.value;
  }

  /** How many records are stored, expired ones not yet swept included (for monitoring and tests). */
  stored(): number {
    return this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM codes').toArray()[0]?.n ?? 0;
  }

  /** Removes expired records and schedules the next sweep. */
  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM codes WHERE expires_at <= ?', Date.now());
    const next = sql.exec<{ at: number | null }>('SELECT MIN(expires_at) AS at FROM codes').toArray()[0]?.at;
    if (next) await this.ctx.storage.setAlarm(next);
  }
}
