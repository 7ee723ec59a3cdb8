/**
 * Rate limits of the OAuth routes, counted in RateCounter Durable Objects (one per counted key,
 * so each count is exact under concurrency). Limits come from the specification's Limits table.
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
 * either limit is spent. The app's counter is only hit once the client's allowed the request,
 * so one noisy client cannot spend the whole app's budget.
 */
export async function countRequest(
  env: Bindings,
  route: LimitedRoute,
  slug: string,
  client: string,
): Promise<void> {
  const ns = env.RATE_COUNTERS;
  const limits = RATE_LIMITS[route];
  const hit = (key: string, limit: number) => ns.get(ns.idFromName(key)).hit(limit, RATE_WINDOW_MS);
  const perClient = await hit(`${route}:${slug}:client:${client}`, limits.client);
  const decision = perClient.allowed ? await hit(`${route}:${slug}:app`, limits.app) : perClient;
  if (!decision.allowed) throw new OAuthError(429, 'too many requests', undefined, decision.retryAfter);
}
