/**
 * A stand-in's request rate limit, as the providers document theirs: a token bucket (Atlas's
 * Administration API names its `capacity` and refill rate; IAM documents a per-account request
 * rate without numbers) and, for tests, refusals queued on purpose so a throttled request can be
 * forced without racing a clock.
 */

/** How a stand-in limits its request rate. */
export interface RateLimit {
  /** Requests that may pass in a burst (the bucket's capacity). */
  capacity: number;
  /** Tokens added back per second. */
  perSecond: number;
}

/** One stand-in's limiter. */
export class Throttle {
  private tokens: number;
  private at = Date.now();
  private forced = 0;
  private holding = false;
  /** How many requests it has refused. */
  refused = 0;

  constructor(private readonly limit?: RateLimit) {
    this.tokens = limit?.capacity ?? 0;
  }

  /** Refuses the next `n` requests whatever the bucket holds (tests). */
  refuseNext(n: number): void {
    this.forced += n;
  }

  /** Refuses every request until {@link release} (tests: a throttled stretch, whoever asks meanwhile). */
  hold(): void {
    this.holding = true;
  }

  /** Ends a {@link hold}. */
  release(): void {
    this.holding = false;
  }

  /** Takes a token for one request: 0 when it may pass, else the whole seconds until one is back. */
  take(): number {
    if (this.holding) {
      this.refused++;
      return 1;
    }
    if (this.forced > 0) {
      this.forced--;
      this.refused++;
      return 1;
    }
    if (!this.limit) return 0;
    const now = Date.now();
    this.tokens = Math.min(
      this.limit.capacity,
      this.tokens + ((now - this.at) / 1000) * this.limit.perSecond,
    );
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    this.refused++;
    return Math.max(1, Math.ceil((1 - this.tokens) / this.limit.perSecond));
  }
}
