/**
 * The client of the RateCounter Durable Objects: fixed-window counters, one object per scope,
 * each call checking and counting several limits at once.
 */
import type { RateCheck, RateDecision } from '../objects/fixed-window';
import type { RateCounter } from '../objects/rate-counter';

/** Counts requests against limits. */
export interface RateLimiter {
  /** Counts one request against every check of scope `name`, all or nothing. */
  take(name: string, checks: RateCheck[], windowMs: number): Promise<RateDecision>;
}

/** The production RateLimiter: one RateCounter Durable Object per scope name. */
export class DurableObjectRateLimiter implements RateLimiter {
  constructor(private readonly namespace: DurableObjectNamespace<RateCounter>) {}

  take(name: string, checks: RateCheck[], windowMs: number): Promise<RateDecision> {
    return this.namespace.get(this.namespace.idFromName(name)).take(checks, windowMs);
  }
}
