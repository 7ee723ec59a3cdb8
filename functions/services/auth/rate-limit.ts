/**
 * Rate limits of the OAuth routes (specification, Limits), counted in one RateCounter Durable
 * Object per app and route: a single call checks and counts the client's limit and the app's
 * together, exactly, before any other work.
 */
import type { Bindings } from '../../env';
import { OAuthError } from '../../lib/oauth-error';

/** The window every OAuth limit is counted in. */
export const RATE_WINDOW_MS = 15 * 60 * 1000;

/** Per-client and per-app limits of each counted route. */
export const RATE_LIMITS = {
  exchange: { client: 20, app: 600 },
  'id-token': { client: 10, app: 600 },
} as const;

/** A counted route. */
export type LimitedRoute = keyof typeof RATE_LIMITS;

/**
 * Counts one request of `client` to `route` of app `slug`; throws 429 with Retry-After when
 * either limit is spent. A refused request counts against neither limit, so one noisy client
 * cannot spend the app's budget.
 */
export async function countRequest(
  env: Bindings,
  route: LimitedRoute,
  slug: string,
  client: string,
): Promise<void> {
  const limits = RATE_LIMITS[route];
  const counter = env.RATE_COUNTERS.get(env.RATE_COUNTERS.idFromName(`${route}:${slug}`));
  const decision = await counter.take(
    [
      { key: `client:${client}`, limit: limits.client },
      { key: 'app', limit: limits.app },
    ],
    RATE_WINDOW_MS,
  );
  if (!decision.allowed) throw new OAuthError(429, 'too many requests', undefined, decision.retryAfter);
}
