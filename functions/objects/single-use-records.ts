/**
 * Single-use records (one-time codes, provider sign-in state, burnt tokens) and the blocks that
 * stop them from being redeemed, kept in a OneTimeCodes object's SQLite storage under the hash
 * of their secret. Every function runs synchronously inside one object call: redeeming deletes
 * the record and reads the blocks in one step, so of concurrent redemptions exactly one succeeds
 * and it sees every block set before it.
 */

/** What redeeming a live record gives: its value and the block on its subject, if any. */
export interface Redeemed {
  value: string;
  /** The reason its subject (or every subject) was blocked for, if it is. */
  block: string | null;
}

/** The subject that stands for every record of the object. */
export const EVERY_SUBJECT = '*';

/** Adds a column to a table made by an earlier layout; a no-op once it is there. */
export function addColumn(sql: SqlStorage, table: string, column: string): void {
  try {
    sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column}`);
  } catch (err) {
    if (!/duplicate column/i.test(String(err))) throw err;
  }
}

/** Creates the records' and blocks' tables, bringing those of an earlier layout up to date. */
export function createRecordTables(sql: SqlStorage): void {
  sql.exec(
    'CREATE TABLE IF NOT EXISTS records (hash TEXT PRIMARY KEY, value TEXT NOT NULL, subject TEXT, expires_at INTEGER NOT NULL)',
  );
  sql.exec(
    'CREATE TABLE IF NOT EXISTS blocks (subject TEXT PRIMARY KEY, reason TEXT NOT NULL, expires_at INTEGER)',
  );
  // The first layout kept records without a subject; nothing in it outlives two minutes.
  sql.exec('DROP TABLE IF EXISTS codes');
  // Columns added since: when a record was issued, and a block that refuses only older ones.
  addColumn(sql, 'records', 'issued_at INTEGER');
  addColumn(sql, 'blocks', 'issued_before INTEGER');
}

/** Stores `value` under `hash` until `expiresAt`, on behalf of `subject`. */
export function storeRecord(
  sql: SqlStorage,
  record: { hash: string; value: string; subject: string | null; expiresAt: number; now: number },
): void {
  sql.exec(
    'INSERT OR REPLACE INTO records (hash, value, subject, expires_at, issued_at) VALUES (?, ?, ?, ?, ?)',
    record.hash,
    record.value,
    record.subject,
    record.expiresAt,
    record.now,
  );
}

/** The value of the record of something a sign-in used up (an ID token, an issued nonce). */
export const BURNT = 'burnt';

/** Whether any of `hashes` stands for something burnt that is still remembered. */
export function anyBurnt(sql: SqlStorage, hashes: string[], now: number): boolean {
  const marks = hashes.map(() => '?').join(', ');
  return (
    sql
      .exec(
        `SELECT 1 FROM records WHERE hash IN (${marks}) AND value = ? AND expires_at > ?`,
        ...hashes,
        BURNT,
        now,
      )
      .toArray().length > 0
  );
}

/**
 * When the oldest record ends if the object holds `cap` live records or more (expired ones are
 * dropped first), or null when there is room.
 */
export function fullUntil(sql: SqlStorage, cap: number, now: number): number | null {
  sql.exec('DELETE FROM records WHERE expires_at <= ?', now);
  const held = sql
    .exec<{ n: number; first: number | null }>('SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM records')
    .toArray()[0];
  return held && held.n >= cap ? (held.first ?? now) : null;
}

/** Whether a live record is stored under `hash`. */
export const isLive = (sql: SqlStorage, hash: string, now: number): boolean =>
  sql.exec('SELECT 1 FROM records WHERE hash = ? AND expires_at > ?', hash, now).toArray().length > 0;

/** How many live records the object holds. */
export const liveRecords = (sql: SqlStorage, now: number): number =>
  sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM records WHERE expires_at > ?', now).toArray()[0]?.n ?? 0;

/** Takes the record once: its value and any block on its subject, or null if unknown or expired. */
export function redeemRecord(sql: SqlStorage, hash: string, now: number): Redeemed | null {
  const row = sql
    .exec<{ value: string; subject: string | null; expires_at: number; issued_at: number | null }>(
      'DELETE FROM records WHERE hash = ? RETURNING value, subject, expires_at, issued_at',
      hash,
    )
    .toArray()[0];
  if (!row || row.expires_at <= now) return null;
  const block = sql
    .exec<{ reason: string }>(
      `SELECT reason FROM blocks WHERE subject IN (?, ?) AND (expires_at IS NULL OR expires_at > ?)
         AND (issued_before IS NULL OR ? < issued_before) ORDER BY subject = ? LIMIT 1`,
      EVERY_SUBJECT,
      row.subject ?? EVERY_SUBJECT,
      now,
      row.issued_at ?? 0,
      EVERY_SUBJECT,
    )
    .toArray()[0];
  return { value: row.value, block: block?.reason ?? null };
}

/** Blocks redemption of `subject`'s records until `expiresAt` (null: until unblocked). */
export function setBlock(sql: SqlStorage, subject: string, reason: string, expiresAt: number | null): void {
  sql.exec(
    'INSERT OR REPLACE INTO blocks (subject, reason, expires_at, issued_before) VALUES (?, ?, ?, NULL)',
    subject,
    reason,
    expiresAt,
  );
}

/**
 * Lifts `subject`'s block of reason `from` for records issued from `now` on, while older ones
 * stay refused as `reason` until `until`; answers whether there was such a block.
 */
export function liftBlockForNew(
  sql: SqlStorage,
  block: { subject: string; from: string; reason: string; until: number; now: number },
): boolean {
  return (
    sql.exec(
      'UPDATE blocks SET reason = ?, issued_before = ?, expires_at = ? WHERE subject = ? AND reason = ?',
      block.reason,
      block.now,
      block.until,
      block.subject,
      block.from,
    ).rowsWritten > 0
  );
}

/** Forgets expired records and blocks; returns when the next one expires, or null if none is left. */
export function sweepRecords(sql: SqlStorage, now: number): number | null {
  sql.exec('DELETE FROM records WHERE expires_at <= ?', now);
  sql.exec('DELETE FROM blocks WHERE expires_at <= ?', now);
  return (
    sql
      .exec<{ at: number | null }>(
        'SELECT MIN(at) AS at FROM (SELECT MIN(expires_at) AS at FROM records UNION ALL SELECT MIN(expires_at) FROM blocks)',
      )
      .toArray()[0]?.at ?? null
  );
}
