/**
 * The OneTimeCodes Durable Object: single-use records, blocks and rate windows
 * (single-use-records-object.ts), and besides them the lease of an app's exchange window between
 * its home object and its regional ones (code-leases.ts) and the CLI's device grants
 * (device-grants.ts). An alarm removes whatever expired.
 */
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
  type DeviceGrantStart,
  type DevicePeek,
  type DevicePoll,
  decideGrant,
  peekGrant,
  pollGrant,
  startGrant,
  sweepDeviceGrants,
} from './device-grants';
import { countHit, type RateCheck, type RateDecision } from './fixed-window';
import {
  addColumn,
  isLive,
  liftBlockForNew,
  liveRecords,
  type Redeemed,
  setBlock,
} from './single-use-records';
import { SingleUseRecordsObject } from './single-use-records-object';

export type { Redeemed } from './single-use-records';

/** What the objects reach: the namespace of the app's home objects. */
interface CodesEnv {
  ONE_TIME_CODES: DurableObjectNamespace<OneTimeCodes>;
}

export type { LeaseTerms } from './code-leases';

export type { SignInAdmission } from './single-use-records-object';

export class OneTimeCodes extends SingleUseRecordsObject<CodesEnv> {
  /** A regional object's lease of the app's window, asked of the app's home. */
  private readonly leases: LeaseKeeper;

  constructor(ctx: DurableObjectState, env: CodesEnv) {
    super(ctx, env);
    this.leases = new LeaseKeeper(ctx.storage.sql, (name) =>
      env.ONE_TIME_CODES.get(env.ONE_TIME_CODES.idFromName(name)),
    );
    const sql = ctx.storage.sql;
    createLeaseTables(sql);
    createDeviceGrants(sql);
    for (const column of DEVICE_GRANT_COLUMNS) addColumn(sql, 'device_grants', column);
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
    const unit = await this.leases.unitFor(() => hash !== null && isLive(sql, hash, now), terms, now);
    if ('refused' in unit) return { decision: unit.refused, redeemed: null };
    // From here to the unit spent nothing awaits, so no other call takes the unit found.
    const { resetsAt, ...decision } = countHit(sql, checks, windowMs, now);
    if (!decision.allowed) return { decision, redeemed: null };
    if (unit.live) spendLeaseUnit(sql, unit.lease, now);
    const redeemed = hash === null ? null : this.redeem(hash, now);
    if (Number.isFinite(resetsAt)) await this.alarmClock.wakeBy(resetsAt);
    return { decision, redeemed };
  }

  /** Starts a device authorization (device-grants.ts startGrant). */
  async startDeviceGrant(
    grant: DeviceGrantStart,
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

  /** Removes expired device grants too; when the next one ends. */
  protected override sweepMore(sql: SqlStorage, now: number): number | null {
    return sweepDeviceGrants(sql, now);
  }
}
