/**
 * Single-use, short-lived records (one-time codes, provider sign-in state, burnt tokens), the
 * blocks that stop them from being redeemed, and fixed-window counters, in a Durable Object's
 * SQLite storage: the calls OneTimeCodes answers for every scope it keeps. Only a hash of a
 * secret is stored, as the key; redeeming deletes the record and reads the blocks in one
 * synchronous step (single-use-records.ts), so of any number of concurrent redemptions exactly
 * one succeeds and it sees every block set before it. An object can count a redemption against
 * rate limits in that same step, so a redemption costs one call. An alarm removes what expired.
 */
import { DurableObject } from 'cloudflare:workers';
import { AlarmClock } from './alarm-clock';
import { countHit, createCounters, type RateCheck, type RateDecision, sweepCounters } from './fixed-window';
import {
  anyBurnt,
  BURNT,
  createRecordTables,
  fullUntil,
  isLive,
  type Redeemed,
  redeemRecord,
  storeRecord,
  sweepRecords,
} from './single-use-records';

/** What admitting a sign-in found: something it presented was used before, or the app's window's answer. */
export type SignInAdmission = { reused: true } | { reused: false; decision: RateDecision };

/** The record-keeping calls of a OneTimeCodes object (one-time-codes-object.ts adds the rest). */
export abstract class SingleUseRecordsObject<Env> extends DurableObject<Env> {
  protected readonly alarmClock: AlarmClock;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.alarmClock = new AlarmClock(ctx.storage);
    createRecordTables(ctx.storage.sql);
    createCounters(ctx.storage.sql);
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
    const more = this.sweepMore(sql, now);
    const due = [expiry, windowEnds, more].filter((at): at is number => typeof at === 'number');
    const next = due.length > 0 ? Math.min(...due) : null;
    await this.alarmClock.rearm(next);
  }

  /** What a subclass keeps besides records and counters, swept by the alarm; when its next item ends. */
  protected abstract sweepMore(sql: SqlStorage, now: number): number | null;
}
