/**
 * Single-use, short-lived records (one-time codes, provider sign-in state) and the blocks that
 * stop them from being redeemed. Only a hash of a code is stored, as the key; redeeming deletes
 * the record and reads the blocks in one synchronous step, so of any number of concurrent
 * redemptions exactly one succeeds and it sees every block set before it. The object can also
 * count the redemptions against rate limits in that same step (the code exchange), so a
 * redemption costs one call. An alarm removes expired records, blocks and rate windows.
 */
import { DurableObject } from 'cloudflare:workers';
import { AlarmClock } from './alarm-clock';
import {
  createLeaseTables,
  grantLease,
  type LeaseAnswer,
  LeaseKeeper,
  type LeaseTerms,
  leasedRegions,
  spendLeaseUnit,
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
import {
  addColumn,
  anyBurnt,
  BURNT,
  createRecordTables,
  fullUntil,
  isLive,
  liftBlockForNew,
  liveRecords,
  type Redeemed,
  redeemRecord,
  setBlock,
  storeRecord,
  sweepRecords,
} from './single-use-records';

export type { Redeemed } from './single-use-records';

/** What the objects reach: the namespace of the app's home objects. */
interface CodesEnv {
  ONE_TIME_CODES: DurableObjectNamespace<OneTimeCodes>;
}

export type { LeaseTerms } from './code-leases';

/** What admitting a sign-in found: something it presented was used before, or the app's window's answer. */
export type SignInAdmission = { reused: true } | { reused: false; decision: RateDecision };

export class OneTimeCodes extends DurableObject<CodesEnv> {
  private readonly alarmClock: AlarmClock;
  /** A regional object's lease of the app's window, asked of the app's home. */
  private readonly leases: LeaseKeeper;

  constructor(ctx: DurableObjectState, env: CodesEnv) {
    super(ctx, env);
    this.alarmClock = new AlarmClock(ctx.storage);
    this.leases = new LeaseKeeper(ctx.storage.sql, (name) =>
      env.ONE_TIME_CODES.get(env.ONE_TIME_CODES.idFromName(name)),
    );
    const sql = ctx.storage.sql;
    createRecordTables(sql);
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
    storeRecord(this.ctx.storage.sql, { hash, value, subject, expiresAt, now });
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
    const full = fullUntil(this.ctx.storage.sql, cap, now);
    if (full !== null) return { stored: false, retryAfterMs: Math.max(0, full - now) };
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
    return redeemRecord(this.ctx.storage.sql, hash, now);
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
    const presents = hash !== null && presentedChecks.length > 0 && isLive(this.ctx.storage.sql, hash, now);
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
    if (anyBurnt(sql, burns, now)) return { reused: true };
    const { resetsAt, ...decision } = countHit(sql, checks, windowMs, now);
    if (!decision.allowed) return { reused: false, decision };
    for (const hash of burns)
      storeRecord(sql, { hash, value: BURNT, subject: null, expiresAt: keepUntil, now });
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
    setBlock(this.ctx.storage.sql, subject, reason, expiresAt);
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
    const until = now + ttlMs;
    if (liftBlockForNew(this.ctx.storage.sql, { subject, from, reason, until, now }))
      await this.alarmClock.wakeBy(until);
    return leasedRegions(this.ctx.storage.sql);
  }

  /** At an app's home object: grants `region` up to `want` units of the app's window (code-leases.ts). */
  leaseTo(region: string, want: number, windowMs: number, limit: number, now = Date.now()): LeaseAnswer {
    return grantLease(this.ctx.storage.sql, { region, want, windowMs, limit, now });
  }

  /**
   * In a regional object: stores a code as {@link issue} does, once the region is registered
   * with the app's home and its lease topped up (code-leases.ts LeaseKeeper.beforeIssue).
   */
  async issueNear(
    hash: string,
    value: string,
    ttlMs: number,
    subject: string | null,
    terms: LeaseTerms,
    now = Date.now(),
  ): Promise<void> {
    await this.leases.beforeIssue(terms, now, liveRecords(this.ctx.storage.sql, now));
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
    const live = () => hash !== null && isLive(sql, hash, now);
    const refused = await this.leases.unitFor(live, terms, now);
    if (refused !== null) return { decision: refused, redeemed: null };
    // From here to the unit spent nothing awaits, so no other call takes the unit found.
    const { resetsAt, ...decision } = countHit(sql, checks, windowMs, now);
    if (!decision.allowed) return { decision, redeemed: null };
    if (live()) spendLeaseUnit(sql, now);
    const redeemed = hash === null ? null : this.redeem(hash, now);
    if (Number.isFinite(resetsAt)) await this.alarmClock.wakeBy(resetsAt);
    return { decision, redeemed };
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
    const expiry = sweepRecords(sql, now);
    const windowEnds = sweepCounters(sql, now);
    const grantEnds = sweepDeviceGrants(sql, now);
    const due = [expiry, windowEnds, grantEnds].filter((at): at is number => typeof at === 'number');
    const next = due.length > 0 ? Math.min(...due) : null;
    await this.alarmClock.rearm(next);
  }
}
