/**
 * Fixed-window rate counters. One object holds every counter of one scope (for example all
 * per-client counters and the per-app counter of one app's id-token route), so one call checks
 * and counts several limits at once. Counting is exact under concurrency: an object runs one
 * call at a time and reads and writes its SQLite storage synchronously. An alarm removes
 * windows that have ended, so idle counters take no space.
 */
import { DurableObject } from 'cloudflare:workers';
import { AlarmClock } from './alarm-clock';
import { countHit, createCounters, type RateCheck, type RateDecision, sweepCounters } from './fixed-window';

export class RateCounter extends DurableObject<object> {
  private readonly alarmClock: AlarmClock;

  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    this.alarmClock = new AlarmClock(ctx.storage);
    createCounters(ctx.storage.sql);
  }

  /**
   * Counts one request against every check, all or nothing: if any window is spent the request
   * is refused and counted nowhere, so refused requests never eat another limit's budget.
   */
  async take(checks: RateCheck[], windowMs: number, now = Date.now()): Promise<RateDecision> {
    const { resetsAt, ...decision } = countHit(this.ctx.storage.sql, checks, windowMs, now);
    if (decision.allowed) await this.alarmClock.wakeBy(resetsAt);
    return decision;
  }

  /** Forgets windows that have ended and wakes again for the next one. */
  override async alarm(): Promise<void> {
    const next = sweepCounters(this.ctx.storage.sql, Date.now());
    await this.alarmClock.rearm(next);
  }
}
