/**
 * Single-use, short-lived records (one-time codes, provider sign-in state) and the blocks that
 * stop them from being redeemed. Only a hash of a code is stored, as the key; redeeming deletes
 * the record and reads the blocks in one synchronous step, so of any number of concurrent
 * redemptions exactly one succeeds and it sees every block set before it. The object can also
 * count the redemptions against rate limits in that same step (the code exchange), so a
 * redemption costs one call. An alarm removes expired records, blocks and rate windows.
 */
import { DurableObject } from 'cloudflare:workers';
import { LEASE_BLOCK, unitsLeft, wantsBlock, windowSpent } from '../domain/window-lease';
import { AlarmClock } from './alarm-clock';
import {
  createLeaseTables,
  grantLease,
  type LeaseAnswer,
  leasedRegions,
  readLease,
  spendLeaseUnit,
  takeLease,
} from './code-leases';
import {
  createDeviceGrants,
  DEVICE_GRANT_COLUMNS,
  type DeviceDecision,
  type DevicePeek,
  type DevicePoll,
  decideGrant,
  peekGrant,
  pollGrant,
  startGrant,
  sweepDeviceGrants,
} from './device-grants';
import { countHit, createCounters, type RateCheck, type RateDecision, sweepCounters } from './fixed-window';

/** What redeeming a live record gives: its value and the block on its subject, if any. */
export interface Redeemed {
  value: string;
  /** The reason given to {@link OneTimeCodes.block} for the record's subject (or for every subject). */
  block: string | null;
}

/** What a regional object needs to ask the app's home for units: the home's name, its own region, the window. */
export interface LeaseTerms {
  home: string;
  region: string;
  windowMs: number;
  limit: number;
}

/** How often an exchange asks the home for units before it is refused for a second. */
const LEASE_TRIES = 3;

/** A refusal until `until`, counting nothing. */
const refusedUntil = (until: number, now: number) => ({
  decision: { allowed: false, remaining: 0, retryAfter: Math.max(1, Math.ceil((until - now) / 1000)) },
  redeemed: null,
});

/** How many live records the object holds. */
const liveRecords = (sql: SqlStorage, now: number): number =>
  sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM records WHERE expires_at > ?', now).toArray()[0]?.n ?? 0;

/** What the objects reach: the namespace of the app's home objects. */
interface CodesEnv {
  ONE_TIME_CODES: DurableObjectNamespace<OneTimeCodes>;
}

/** The value of the record of something a sign-in used up (an ID token, an issued nonce). */
const BURNT = 'burnt';

/** What admitting a sign-in found: something it presented was used before, or the app's window's answer. */
export type SignInAdmission = { reused: true } | { reused: false; decision: RateDecision };

/** The subject that stands for every record of the object. */
export const EVERY_SUBJECT = '*';

/** Adds a column to a table made by an earlier layout; a no-op once it is there. */
function addColumn(sql: SqlStorage, table: string, column: string): void {
  try {
    sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column}`);
  } catch (err) {
    if (!/duplicate column/i.test(String(err))) throw err;
  }
}

export class OneTimeCodes extends DurableObject<CodesEnv> {
  private readonly alarmClock: AlarmClock;
  /** A regional object's ask for units in flight, shared by every request that needs one. */
  private leasing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: CodesEnv) {
    super(ctx, env);
    this.alarmClock = new AlarmClock(ctx.storage);
    const sql = ctx.storage.sql;
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
    createCounters(sql);
    createLeaseTables(sql);
    createDeviceGrants(sql);
    for (const column of DEVICE_GRANT_COLUMNS) addColumn(sql, 'device_grants', column);
  }

  /**
   * Stores `value` under `hash` for `ttlMs`, on behalf of `subject` (for example a user id).
   * `now`, here and in every call, is the caller's clock: lifetimes are the Worker's (its tests
   * set it).
   */
  async issue(
    hash: string,
    value: string,
    ttlMs: number,
    subject: string | null = null,
    now = Date.now(),
  ): Promise<void> {
    const expiresAt = now + ttlMs;
    this.ctx.storage.sql.exec(
      'INSERT OR REPLACE INTO records (hash, value, subject, expires_at, issued_at) VALUES (?, ?, ?, ?, ?)',
      hash,
      value,
      subject,
      expiresAt,
      now,
    );
    await this.alarmClock.wakeBy(expiresAt);
  }

  /**
   * Stores `value` under `hash` for `ttlMs` unless the object already holds `cap` live records:
   * then nothing is stored and the answer says when the oldest expires. A record in progress is
   * never pushed out by newer ones, so a flood of starts from many clients bounds the storage
   * without ending anyone's sign-in (the per-client start limit bounds each client's share).
   */
  async issueWithin(
    hash: string,
    value: string,
    ttlMs: number,
    cap: number,
    now = Date.now(),
  ): Promise<{ stored: true } | { stored: false; retryAfterMs: number }> {
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM records WHERE expires_at <= ?', now);
    const held = sql
      .exec<{ n: number; first: number | null }>(
        'SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM records',
      )
      .toArray()[0];
    if (held && held.n >= cap) return { stored: false, retryAfterMs: Math.max(0, (held.first ?? now) - now) };
    await this.issue(hash, value, ttlMs, null, now);
    return { stored: true };
  }

  /** The live record's value under `hash`, left in place (null if unknown or expired). */
  peek(hash: string, now = Date.now()): string | null {
    return (
      this.ctx.storage.sql
        .exec<{ value: string }>('SELECT value FROM records WHERE hash = ? AND expires_at > ?', hash, now)
        .toArray()[0]?.value ?? null
    );
  }

  /** Takes the record once: its value and any block on its subject, or null if unknown or expired. */
  redeem(hash: string, now = Date.now()): Redeemed | null {
    const sql = this.ctx.storage.sql;
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

  /**
   * Counts one request against `checks` (all or nothing, as RateCounter.take) and, when it is
   * allowed and names a record (`hash` not null), redeems that record in the same step. The
   * `presentedChecks` (the app's window) count only a request that presents a live record, so
   * requests with made-up codes never spend them. A refused request redeems nothing, so its
   * code stays usable once the window resets.
   */
  async countAndRedeem(
    checks: RateCheck[],
    windowMs: number,
    hash: string | null,
    presentedChecks: RateCheck[] = [],
    now = Date.now(),
  ): Promise<{ decision: RateDecision; redeemed: Redeemed | null }> {
    const presents =
      hash !== null &&
      presentedChecks.length > 0 &&
      this.ctx.storage.sql
        .exec('SELECT 1 FROM records WHERE hash = ? AND expires_at > ?', hash, now)
        .toArray().length > 0;
    const counted = presents ? [...checks, ...presentedChecks] : checks;
    const { resetsAt, ...decision } = countHit(this.ctx.storage.sql, counted, windowMs, now);
    if (!decision.allowed) return { decision, redeemed: null };
    const redeemed = hash === null ? null : this.redeem(hash, now);
    // No checks (a request counted earlier) opens no window to sweep.
    if (Number.isFinite(resetsAt)) await this.alarmClock.wakeBy(resetsAt);
    return { decision, redeemed };
  }

  /**
   * Admits a sign-in that presented something single-use (an ID token, the issued nonce it is
   * bound to), each stood for by a hash in `burns`: 'reused' when any was burnt before, counted
   * nowhere, so replays spend no budget; otherwise one hit against `checks` (the app's window,
   * all or nothing) and, when allowed, every hash is remembered as burnt until `keepUntil`. One
   * synchronous step: of concurrent sign-ins with one token exactly one is admitted. Only
   * admitted sign-ins store anything, so what is kept is bounded by the app's window.
   */
  async admitSignIn(
    burns: string[],
    keepUntil: number,
    checks: RateCheck[],
    windowMs: number,
    now = Date.now(),
  ): Promise<SignInAdmission> {
    const sql = this.ctx.storage.sql;
    const marks = burns.map(() => '?').join(', ');
    const burnt = sql
      .exec(
        `SELECT 1 FROM records WHERE hash IN (${marks}) AND value = ? AND expires_at > ?`,
        ...burns,
        BURNT,
        now,
      )
      .toArray();
    if (burnt.length > 0) return { reused: true };
    const { resetsAt, ...decision } = countHit(sql, checks, windowMs, now);
    if (!decision.allowed) return { reused: false, decision };
    for (const hash of burns) {
      sql.exec(
        'INSERT OR REPLACE INTO records (hash, value, subject, expires_at, issued_at) VALUES (?, ?, NULL, ?, ?)',
        hash,
        BURNT,
        keepUntil,
        now,
      );
    }
    await this.alarmClock.wakeBy(Math.min(resetsAt, keepUntil));
    return { reused: false, decision };
  }

  /**
   * Blocks redemption of `subject`'s records (`*`: all records), for `ttlMs` or until unblocked.
   * Here, as in {@link unblock} and {@link liftForNewRecords}, the answer names the regions this
   * object (an app's home) has leased to, which the change must reach too.
   */
  async block(
    subject: string,
    reason: string,
    ttlMs: number | null = null,
    now = Date.now(),
  ): Promise<string[]> {
    const expiresAt = ttlMs === null ? null : now + ttlMs;
    this.ctx.storage.sql.exec(
      'INSERT OR REPLACE INTO blocks (subject, reason, expires_at, issued_before) VALUES (?, ?, ?, NULL)',
      subject,
      reason,
      expiresAt,
    );
    if (expiresAt !== null) await this.alarmClock.wakeBy(expiresAt);
    return leasedRegions(this.ctx.storage.sql);
  }

  /** Lifts a block. */
  unblock(subject: string): string[] {
    this.ctx.storage.sql.exec('DELETE FROM blocks WHERE subject = ?', subject);
    return leasedRegions(this.ctx.storage.sql);
  }

  /**
   * Lifts `subject`'s block of reason `from` for records issued from now on, while those issued
   * before stay refused (as `reason`) for `ttlMs`, their longest remaining life. Nothing happens
   * when the subject has no such block, so repeating it is harmless.
   */
  async liftForNewRecords(
    subject: string,
    from: string,
    reason: string,
    ttlMs: number,
    now = Date.now(),
  ): Promise<string[]> {
    const lifted = this.ctx.storage.sql.exec(
      'UPDATE blocks SET reason = ?, issued_before = ?, expires_at = ? WHERE subject = ? AND reason = ?',
      reason,
      now,
      now + ttlMs,
      subject,
      from,
    ).rowsWritten;
    if (lifted > 0) await this.alarmClock.wakeBy(now + ttlMs);
    return leasedRegions(this.ctx.storage.sql);
  }

  /** At an app's home object: grants `region` up to `want` units of the app's window (code-leases.ts). */
  leaseTo(region: string, want: number, windowMs: number, limit: number, now = Date.now()): LeaseAnswer {
    return grantLease(this.ctx.storage.sql, { region, want, windowMs, limit, now });
  }

  /**
   * In a regional object: asks the app's home for a block of its window and adds it to the
   * lease. Concurrent asks share one call, so a burst of sign-ins in a region takes one block.
   */
  private askHome(terms: LeaseTerms, now: number): Promise<void> {
    this.leasing ??= (async () => {
      const homes = this.env.ONE_TIME_CODES;
      const home = homes.get(homes.idFromName(terms.home));
      const answer = await home.leaseTo(terms.region, LEASE_BLOCK, terms.windowMs, terms.limit, now);
      takeLease(this.ctx.storage.sql, answer, now);
    })().finally(() => {
      this.leasing = null;
    });
    return this.leasing;
  }

  /**
   * In a regional object: stores a code as {@link issue} does. The region registers with the
   * home first (its first lease brings the home's blocks, so every block reaches the code), and
   * asks for a block when its lease would not cover the codes outstanding plus this one; only
   * the registration must succeed.
   */
  async issueNear(
    hash: string,
    value: string,
    ttlMs: number,
    subject: string | null,
    terms: LeaseTerms,
    now = Date.now(),
  ): Promise<void> {
    const sql = this.ctx.storage.sql;
    const lease = readLease(sql);
    if (lease === null) await this.askHome(terms, now);
    else if (wantsBlock(lease, now, liveRecords(sql, now)))
      await this.askHome(terms, now).catch(() => undefined);
    await this.issue(hash, value, ttlMs, subject, now);
  }

  /**
   * In a regional object: counts one exchange against `checks` (all or nothing) and, when
   * allowed and `hash` names a live code, spends a unit of the lease and redeems the code, in
   * one step. With no unit left it asks the home first; once the home said the window is spent
   * (or cannot be reached), it refuses with Retry-After and counts nothing.
   */
  async redeemNear(
    checks: RateCheck[],
    windowMs: number,
    hash: string | null,
    terms: LeaseTerms,
    now = Date.now(),
  ): Promise<{ decision: RateDecision; redeemed: Redeemed | null }> {
    const sql = this.ctx.storage.sql;
    for (let tries = 0; ; tries++) {
      const live =
        hash !== null &&
        sql.exec('SELECT 1 FROM records WHERE hash = ? AND expires_at > ?', hash, now).toArray().length > 0;
      const lease = readLease(sql);
      if (live && unitsLeft(lease, now) === 0) {
        if (lease !== null && windowSpent(lease, now)) return refusedUntil(lease.resetsAt, now);
        const asked =
          tries < LEASE_TRIES &&
          (await this.askHome(terms, now).then(
            () => true,
            () => false,
          ));
        if (!asked) return refusedUntil(now + 1000, now);
        continue;
      }
      const { resetsAt, ...decision } = countHit(sql, checks, windowMs, now);
      if (!decision.allowed) return { decision, redeemed: null };
      if (live) spendLeaseUnit(sql, now);
      const redeemed = hash === null ? null : this.redeem(hash, now);
      if (Number.isFinite(resetsAt)) await this.alarmClock.wakeBy(resetsAt);
      return { decision, redeemed };
    }
  }

  /** Starts a device authorization (device-grants.ts startGrant). */
  async startDeviceGrant(
    grant: {
      deviceHash: string;
      userHash: string;
      name: string;
      ttlMs: number;
      intervalS: number;
      ip?: string | null;
    },
    checks: RateCheck[],
    windowMs: number,
    now = Date.now(),
  ): Promise<{ started: boolean; decision: RateDecision }> {
    const { wakeAt, ...started } = startGrant(this.ctx.storage.sql, grant, checks, windowMs, now);
    await this.alarmClock.wakeBy(wakeAt);
    return started;
  }

  /** Approves (`accountId`) or denies (null) the grant of a typed user code (device-grants.ts decideGrant). */
  async decideDeviceGrant(
    userHash: string,
    accountId: string | null,
    tries: RateCheck[],
    windowMs: number,
    now = Date.now(),
    sessionId: string | null = null,
  ): Promise<DeviceDecision> {
    const { outcome, wakeAt } = decideGrant(
      this.ctx.storage.sql,
      userHash,
      accountId,
      tries,
      windowMs,
      now,
      sessionId,
    );
    if (wakeAt !== null) await this.alarmClock.wakeBy(wakeAt);
    return outcome;
  }

  /** The asking device of a typed user code, deciding nothing (device-grants.ts peekGrant). */
  async peekDeviceGrant(
    userHash: string,
    tries: RateCheck[],
    windowMs: number,
    now = Date.now(),
  ): Promise<DevicePeek> {
    const { outcome, wakeAt } = peekGrant(this.ctx.storage.sql, userHash, tries, windowMs, now);
    if (wakeAt !== null) await this.alarmClock.wakeBy(wakeAt);
    return outcome;
  }

  /** One poll of a device code (device-grants.ts pollGrant). */
  async pollDeviceGrant(
    deviceHash: string,
    checks: RateCheck[],
    windowMs: number,
    now = Date.now(),
  ): Promise<DevicePoll> {
    const { poll, wakeAt } = pollGrant(this.ctx.storage.sql, deviceHash, checks, windowMs, now);
    await this.alarmClock.wakeBy(wakeAt);
    return poll;
  }

  /** How many records are stored, expired ones not yet swept included (for monitoring and tests). */
  stored(): number {
    return this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM records').toArray()[0]?.n ?? 0;
  }

  /** Removes expired records, blocks and rate windows and schedules the next sweep. */
  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql;
    const now = Date.now();
    sql.exec('DELETE FROM records WHERE expires_at <= ?', now);
    sql.exec('DELETE FROM blocks WHERE expires_at <= ?', now);
    const windowEnds = sweepCounters(sql, now);
    const grantEnds = sweepDeviceGrants(sql, now);
    const expiry = sql
      .exec<{ at: number | null }>(
        'SELECT MIN(at) AS at FROM (SELECT MIN(expires_at) AS at FROM records UNION ALL SELECT MIN(expires_at) FROM blocks)',
      )
      .toArray()[0]?.at;
    const due = [expiry, windowEnds, grantEnds].filter((at): at is number => typeof at === 'number');
    const next = due.length > 0 ? Math.min(...due) : null;
    await this.alarmClock.rearm(next);
  }
}
