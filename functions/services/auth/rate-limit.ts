/**
 * Rate limits of the OAuth routes (specification, Limits). The id-token route is counted in one
 * RateCounter Durable Object per app; the exchange in the object holding the app's one-time
 * codes (see exchange.ts). Either way a single call checks and counts the client's limit and
 * the app's together, exactly, before any other work.
 */
import type { RateLimiter } from '../../adapters/rate-limiter';
import { OAuthError } from '../../lib/oauth-error';
import type { RateCheck, RateDecision } from '../../objects/fixed-window';

/** The window every OAuth limit is counted in. */
export const RATE_WINDOW_MS = 15 * 60 * 1000;

/** Per-client and per-app limits of each counted route. */
export const RATE_LIMITS = {
  exchange: { client: 20, app: 600 },
  'id-token': { client: 10, app: 600 },
} as const;

/** A counted route. */
export type LimitedRoute = keyof typeof RATE_LIMITS;

/** The limits one request of `client` to `route` is counted against. */
export function rateChecks(route: LimitedRoute, client: string): RateCheck[] {
  const limits = RATE_LIMITS[route];
  return [
    { key: `client:${client}`, limit: limits.client },
    { key: 'app', limit: limits.app },
  ];
}

/** Throws 429 with Retry-After when a limit refused the request. */
export function enforce(decision: RateDecision): void {
  if (!decision.allowed) throw new OAuthError(429, 'too many requests', undefined, decision.retryAfter);
}

/**
 * Counts one request of `client` to the id-token route of app `slug`; throws 429 with
 * Retry-After when either limit is spent. A refused request counts against neither limit, so
 * one noisy client cannot spend the app's budget.
 */
export async function countIdTokenRequest(limiter: RateLimiter, slug: string, client: string): Promise<void> {
  enforce(await limiter.take(`id-token:${slug}`, rateChecks('id-token', client), RATE_WINDOW_MS));
}
