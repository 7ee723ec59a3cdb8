/**
 * The client of the OneTimeCodes Durable Objects: single-use records kept under the hash of
 * their secret, the blocks that stop them from being redeemed, and the exchange's rate windows.
 * Use cases name a scope (one object each) and never touch the namespace binding themselves.
 */

import type { DeviceDecision, DeviceGrantStart, DevicePeek, DevicePoll } from '../objects/device-grants';
import type { RateCheck, RateDecision } from '../objects/fixed-window';
import type { LeaseTerms, OneTimeCodes, Redeemed, SignInAdmission } from '../objects/one-time-codes-object';

/** One scope of records: the calls of one OneTimeCodes object. */
export interface CodeScope {
  /** Stores `value` under `hash` for `ttlMs`, on behalf of `subject`. */
  issue(hash: string, value: string, ttlMs: number, subject: string | null): Promise<void>;
  /** Stores `value` under `hash` for `ttlMs` unless `cap` live records are held (then: when the oldest ends). */
  issueWithin(
    hash: string,
    value: string,
    ttlMs: number,
    cap: number,
  ): Promise<{ stored: true } | { stored: false; retryAfterMs: number }>;
  /** The live record under `hash`, left in place. */
  peek(hash: string): Promise<string | null>;
  /** Takes the record under `hash` (single use), with any block on its subject. */
  redeem(hash: string): Promise<Redeemed | null>;
  /**
   * Counts one request against `checks` and, when allowed, redeems `hash` in the same step;
   * `presentedChecks` count only when `hash` names a live record.
   */
  countAndRedeem(
    checks: RateCheck[],
    windowMs: number,
    hash: string | null,
    presentedChecks?: RateCheck[],
  ): Promise<{ decision: RateDecision; redeemed: Redeemed | null }>;
  /**
   * Blocks redemption of `subject`'s records, for `ttlMs` or until unblocked. This and the two
   * below answer the regions an app's home object has leased to, which the change must reach.
   */
  block(subject: string, reason: string, ttlMs: number | null): Promise<string[]>;
  /** Lifts a block. */
  unblock(subject: string): Promise<string[]>;
  /** Lifts `subject`'s block `from` for new records; older ones stay refused as `reason`. */
  liftForNewRecords(subject: string, from: string, reason: string, ttlMs: number): Promise<string[]>;
  /** In a region: stores a code, registered with the app's home (`terms`) and its lease topped up first. */
  issueNear(
    hash: string,
    value: string,
    ttlMs: number,
    subject: string | null,
    terms: LeaseTerms,
  ): Promise<void>;
  /** In a region: counts `checks` and redeems a live code on a unit of the app's window leased from its home. */
  redeemNear(
    checks: RateCheck[],
    windowMs: number,
    hash: string | null,
    terms: LeaseTerms,
  ): Promise<{ decision: RateDecision; redeemed: Redeemed | null }>;
  /** Refuses a sign-in presenting anything burnt under `burns`; else counts `checks` and, when allowed, burns them. */
  admitSignIn(
    burns: string[],
    keepUntil: number,
    checks: RateCheck[],
    windowMs: number,
  ): Promise<SignInAdmission>;
  /** Starts a device grant after counting `checks`; not started when the user code is taken. */
  startDeviceGrant(
    grant: DeviceGrantStart,
    checks: RateCheck[],
    windowMs: number,
  ): Promise<{ started: boolean; decision: RateDecision }>;
  /** Approves (`accountId`) or denies (null) the pending grant of a user code; wrong codes count against `tries`. */
  decideDeviceGrant(
    userHash: string,
    accountId: string | null,
    tries: RateCheck[],
    windowMs: number,
    /** The dashboard session that approves: the token's parent. */
    sessionId?: string | null,
  ): Promise<DeviceDecision>;
  /** The asking device of a user code (name, address, start), deciding nothing; counted as a try. */
  peekDeviceGrant(userHash: string, tries: RateCheck[], windowMs: number): Promise<DevicePeek>;
  /** One poll of a device code, counted against `checks`; a decided grant is taken once. */
  pollDeviceGrant(deviceHash: string, checks: RateCheck[], windowMs: number): Promise<DevicePoll>;
}

/** Where one-time codes and sign-in state are kept. */
export interface CodeStore {
  /**
   * The scope named `name` (for example `codes:<app slug>`); `near` is the Durable Object
   * location hint the object is created with when it does not exist yet.
   */
  scope(name: string, near?: DurableObjectLocationHint): CodeScope;
}

/**
 * The production CodeStore: one OneTimeCodes Durable Object per scope name. Every call carries
 * this side's time (`now`, the Worker's clock), so a test that sets the Worker's clock moves the
 * lifetimes the objects keep with it.
 */
export class DurableObjectCodeStore implements CodeStore {
  constructor(
    private readonly namespace: DurableObjectNamespace<OneTimeCodes>,
    private readonly now: () => number = () => Date.now(),
  ) {}

  scope(name: string, near?: DurableObjectLocationHint): CodeScope {
    const id = this.namespace.idFromName(name);
    const stub = near ? this.namespace.get(id, { locationHint: near }) : this.namespace.get(id);
    const now = this.now;
    return {
      issue: (hash, value, ttlMs, subject) => stub.issue(hash, value, ttlMs, subject, now()),
      issueWithin: (hash, value, ttlMs, cap) => stub.issueWithin(hash, value, ttlMs, cap, now()),
      peek: (hash) => stub.peek(hash, now()),
      redeem: (hash) => stub.redeem(hash, now()),
      countAndRedeem: (checks, windowMs, hash, presentedChecks) =>
        stub.countAndRedeem(checks, windowMs, hash, presentedChecks ?? [], now()),
      block: (subject, reason, ttlMs) => stub.block(subject, reason, ttlMs, now()),
      unblock: (subject) => stub.unblock(subject),
      liftForNewRecords: (subject, from, reason, ttlMs) =>
        stub.liftForNewRecords(subject, from, reason, ttlMs, now()),
      issueNear: (hash, value, ttlMs, subject, terms) =>
        stub.issueNear(hash, value, ttlMs, subject, terms, now()),
      redeemNear: (checks, windowMs, hash, terms) => stub.redeemNear(checks, windowMs, hash, terms, now()),
      admitSignIn: (burns, keepUntil, checks, windowMs) =>
        stub.admitSignIn(burns, keepUntil, checks, windowMs, now()),
      startDeviceGrant: (grant, checks, windowMs) => stub.startDeviceGrant(grant, checks, windowMs, now()),
      decideDeviceGrant: (userHash, accountId, tries, windowMs, sessionId) =>
        stub.decideDeviceGrant(userHash, accountId, tries, windowMs, now(), sessionId ?? null),
      peekDeviceGrant: (userHash, tries, windowMs) => stub.peekDeviceGrant(userHash, tries, windowMs, now()),
      pollDeviceGrant: (deviceHash, checks, windowMs) =>
        stub.pollDeviceGrant(deviceHash, checks, windowMs, now()),
    };
  }
}
