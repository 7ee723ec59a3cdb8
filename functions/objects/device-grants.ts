/**
 * Device authorizations (RFC 8628) kept in a OneTimeCodes object's SQLite storage: a grant is
 * found by the hash of its device code (the polling CLI) or of its user code (the person
 * approving), approved or denied once, and taken by the poll that finds it decided. Every
 * function runs synchronously inside one object call, so a decision and a poll never interleave
 * and of concurrent polls exactly one takes an approved grant.
 */
import { countHit, type RateCheck, type RateDecision } from './fixed-window';

/** What a poll finds. */
export type DevicePoll =
  | { status: 'expired' | 'pending' | 'denied' }
  | { status: 'slow_down'; interval: number }
  | { status: 'approved'; accountId: string; name: string; sessionId?: string }
  | { status: 'limited'; decision: RateDecision };

/** The asking device as the approval page shows it (RFC 8628 §5.4), or why none is shown. */
export type DevicePeek =
  | { found: true; name: string; ip: string | null; startedAt: number | null }
  | { found: false; decision: RateDecision }
  | { found: false; limited: RateDecision };

/** What a person's decision on a typed user code finds. */
export type DeviceDecision =
  | { found: true; name: string }
  | { found: false; decision: RateDecision }
  | { found: false; limited: RateDecision };

type GrantRow = {
  device_hash: string;
  name: string;
  status: string;
  account_id: string | null;
  session_id: string | null;
  requester_ip: string | null;
  started_at: number | null;
  interval_s: number;
  next_poll_at: number;
  expires_at: number;
};

/** Creates the grants table if the object has none yet. */
export function createDeviceGrants(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS device_grants (device_hash TEXT PRIMARY KEY, user_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL, status TEXT NOT NULL, account_id TEXT, interval_s INTEGER NOT NULL,
    next_poll_at INTEGER NOT NULL, expires_at INTEGER NOT NULL)`);
}

/** The columns added to device_grants since its first layout (the caller adds each if missing). */
export const DEVICE_GRANT_COLUMNS = ['session_id TEXT', 'requester_ip TEXT', 'started_at INTEGER'];

/** A device authorization to start (RFC 8628): hashes of its two codes, the asking machine's name. */
export interface DeviceGrantStart {
  deviceHash: string;
  userHash: string;
  name: string;
  ttlMs: number;
  intervalS: number;
  /** The address the asking machine started from, shown to the person who approves. */
  ip?: string | null;
}

/**
 * Starts a grant; false when the user code's hash is taken by a live grant (draw another).
 * `checks` count the starting client first (all or nothing); a refused start stores nothing.
 */
export function startGrant(
  sql: SqlStorage,
  grant: DeviceGrantStart,
  checks: RateCheck[],
  windowMs: number,
  now: number,
): { started: boolean; decision: RateDecision; wakeAt: number } {
  sql.exec('DELETE FROM device_grants WHERE expires_at <= ?', now);
  const { resetsAt, ...decision } = countHit(sql, checks, windowMs, now);
  if (!decision.allowed) return { started: false, decision, wakeAt: resetsAt };
  const taken = sql.exec('SELECT 1 FROM device_grants WHERE user_hash = ?', grant.userHash).toArray();
  if (taken.length > 0) return { started: false, decision, wakeAt: resetsAt };
  const expiresAt = now + grant.ttlMs;
  sql.exec(
    `INSERT INTO device_grants (device_hash, user_hash, name, status, account_id, interval_s, next_poll_at, expires_at,
       requester_ip, started_at)
     VALUES (?, ?, ?, 'pending', NULL, ?, ?, ?, ?, ?)`,
    grant.deviceHash,
    grant.userHash,
    grant.name,
    grant.intervalS,
    now,
    expiresAt,
    grant.ip ?? null,
    now,
  );
  return { started: true, decision, wakeAt: Math.min(resetsAt, expiresAt) };
}

/**
 * The pending live grant whose user code hashes to `userHash`, counted as a person's try: a
 * code that names none counts one wrong try against `tries` (the person's and the client's
 * windows); once a window is spent every try is refused, right or wrong, until it resets.
 */
function findPending(
  sql: SqlStorage,
  userHash: string,
  tries: RateCheck[],
  windowMs: number,
  now: number,
):
  | { row: GrantRow }
  | {
      miss: { found: false; decision: RateDecision } | { found: false; limited: RateDecision };
      wakeAt: number | null;
    } {
  const keys = tries.map((t) => t.key);
  const spent = sql
    .exec<{ key: string; resets_at: number; count: number }>(
      `SELECT key, resets_at, count FROM counters WHERE key IN (${keys.map(() => '?').join(', ')}) AND resets_at > ?`,
      ...keys,
      now,
    )
    .toArray()
    .filter((row) => row.count >= (tries.find((t) => t.key === row.key)?.limit ?? Infinity));
  if (spent.length > 0) {
    const resetsAt = Math.max(...spent.map((row) => row.resets_at));
    const retryAfter = Math.max(1, Math.ceil((resetsAt - now) / 1000));
    return { miss: { found: false, limited: { allowed: false, remaining: 0, retryAfter } }, wakeAt: null };
  }
  const row = sql
    .exec<GrantRow>(
      "SELECT * FROM device_grants WHERE user_hash = ? AND status = 'pending' AND expires_at > ?",
      userHash,
      now,
    )
    .toArray()[0];
  if (row) return { row };
  const { resetsAt, ...decision } = countHit(sql, tries, windowMs, now);
  return { miss: { found: false, decision }, wakeAt: resetsAt };
}

/**
 * A person's decision on the grant whose user code hashes to `userHash`: approved for
 * `accountId` (through dashboard session `sessionId`, the token's parent), or denied when it is
 * null. Only a pending live grant is decided; wrong codes count as {@link findPending} says.
 */
export function decideGrant(
  sql: SqlStorage,
  userHash: string,
  accountId: string | null,
  tries: RateCheck[],
  windowMs: number,
  now: number,
  sessionId: string | null = null,
): { outcome: DeviceDecision; wakeAt: number | null } {
  const found = findPending(sql, userHash, tries, windowMs, now);
  if ('miss' in found) return { outcome: found.miss, wakeAt: found.wakeAt };
  sql.exec(
    'UPDATE device_grants SET status = ?, account_id = ?, session_id = ? WHERE device_hash = ?',
    accountId === null ? 'denied' : 'approved',
    accountId,
    accountId === null ? null : sessionId,
    found.row.device_hash,
  );
  return { outcome: { found: true, name: found.row.name }, wakeAt: null };
}

/**
 * The asking device of the pending grant whose user code hashes to `userHash` (its name, the
 * address it started from and when), decided nothing; counted as a try like a decision, so
 * looking codes up is no cheaper a way to guess them.
 */
export function peekGrant(
  sql: SqlStorage,
  userHash: string,
  tries: RateCheck[],
  windowMs: number,
  now: number,
): { outcome: DevicePeek; wakeAt: number | null } {
  const found = findPending(sql, userHash, tries, windowMs, now);
  if ('miss' in found) return { outcome: found.miss, wakeAt: found.wakeAt };
  const { name, requester_ip: ip, started_at: startedAt } = found.row;
  return { outcome: { found: true, name, ip, startedAt }, wakeAt: null };
}

/**
 * One poll of the CLI holding the device code hashing to `deviceHash`, counted against the
 * client's `checks` first. Polling before the grant's interval has passed is `slow_down` and
 * adds five seconds to it; a decided grant is taken (deleted) by the poll that sees it.
 */
export function pollGrant(
  sql: SqlStorage,
  deviceHash: string,
  checks: RateCheck[],
  windowMs: number,
  now: number,
): { poll: DevicePoll; wakeAt: number } {
  const { resetsAt, ...decision } = countHit(sql, checks, windowMs, now);
  if (!decision.allowed) return { poll: { status: 'limited', decision }, wakeAt: resetsAt };
  const row = sql
    .exec<GrantRow>('SELECT * FROM device_grants WHERE device_hash = ?', deviceHash)
    .toArray()[0];
  if (!row || row.expires_at <= now) return { poll: { status: 'expired' }, wakeAt: resetsAt };
  if (row.status !== 'pending') {
    sql.exec('DELETE FROM device_grants WHERE device_hash = ?', deviceHash);
    const poll: DevicePoll =
      row.status === 'approved' && row.account_id
        ? {
            status: 'approved',
            accountId: row.account_id,
            name: row.name,
            ...(row.session_id ? { sessionId: row.session_id } : {}),
          }
        : { status: 'denied' };
    return { poll, wakeAt: resetsAt };
  }
  // A second of slack: a CLI that waits the interval and then sends may arrive a little early.
  if (now < row.next_poll_at - 1000) {
    const interval = row.interval_s + 5;
    sql.exec(
      'UPDATE device_grants SET interval_s = ?, next_poll_at = ? WHERE device_hash = ?',
      interval,
      now + interval * 1000,
      deviceHash,
    );
    return { poll: { status: 'slow_down', interval }, wakeAt: resetsAt };
  }
  sql.exec(
    'UPDATE device_grants SET next_poll_at = ? WHERE device_hash = ?',
    now + row.interval_s * 1000,
    deviceHash,
  );
  return { poll: { status: 'pending' }, wakeAt: resetsAt };
}

/** Removes expired grants; the soonest expiry left, if any. */
export function sweepDeviceGrants(sql: SqlStorage, now: number): number | null {
  sql.exec('DELETE FROM device_grants WHERE expires_at <= ?', now);
  return (
    sql.exec<{ at: number | null }>('SELECT MIN(expires_at) AS at FROM device_grants').toArray()[0]?.at ??
    null
  );
}
