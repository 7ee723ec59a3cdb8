/**
 * Rate limits of the OAuth routes (specification, Limits). The id-token route's clients are counted
 * in one RateCounter Durable Object per app, its app window where the app's used tokens are burnt
 * (nonces.ts admitIdToken), only for a token never used before; the exchange in the object holding the app's one-time
 * codes (see exchange.ts), where one call counts the client, redeems the code and counts the
 * app's window when the code was live. Counting is exact under any concurrency.
 */
import type { RateLimiter } from '../../adapters/rate-limiter';
import { OAuthError } from '../../lib/oauth-error';
import type { RateCheck, RateDecision } from '../../objects/fixed-window';

/** The window every OAuth limit is counted in. */
export const RATE_WINDOW_MS = 15 * 60 * 1000;

/**
 * Per-client and per-app limits of each counted route. A client is keyed so it cannot vary
 * cheaply (an IPv6 address by its /64). The app's window is spent only by requests that present
 * something of the app (a live one-time code, an ID token whose signature and audience are the
 * app's), so made-up requests from any number of clients never lock its users out.
 */
export const RATE_LIMITS = {
  exchange: { client: 20, app: 600 },
  'id-token': { client: 10, app: 600 },
} as const;

/**
 * Browser sign-ins started (`/auth/{provider}`) per client per window. Each keeps provider
 * state for ten minutes; nothing in the request proves it is the app's, so there is no app
 * window to spend, and the client limit leaves room for a shared office address.
 */
export const SIGN_IN_STARTS_PER_CLIENT = 100;

/** A counted route. */
export type LimitedRoute = keyof typeof RATE_LIMITS;

/** The client's limit of `route`, counted on every request. */
export const clientChecks = (route: LimitedRoute, client: string): RateCheck[] => [
  { key: `client:${client}`, limit: RATE_LIMITS[route].client },
];

/** The app's limit of `route`, counted only on a request that presented something of the app. */
export const appChecks = (route: LimitedRoute): RateCheck[] => [
  { key: 'app', limit: RATE_LIMITS[route].app },
];

/** Throws 429 with Retry-After when a limit refused the request. */
export function enforce(decision: RateDecision): void {
  if (!decision.allowed) throw new OAuthError(429, 'too many requests', undefined, decision.retryAfter);
}

/** The RateCounter scope of an app's id-token route. */
const idTokenScope = (slug: string) => `id-token:${slug}`;

/**
 * Counts one request of `client` to the id-token route of app `slug` against the client's
 * limit, before any other work; throws 429 with Retry-After when it is spent.
 */
export async function countIdTokenRequest(limiter: RateLimiter, slug: string, client: string): Promise<void> {
  enforce(await limiter.take(idTokenScope(slug), clientChecks('id-token', client), RATE_WINDOW_MS));
}

/** Counts one browser sign-in start of `client` for app `slug` (429 past the limit). */
export async function countSignInStart(limiter: RateLimiter, slug: string, client: string): Promise<void> {
  enforce(
    await limiter.take(
      `sign-in:${slug}`,
      [{ key: `client:${client}`, limit: SIGN_IN_STARTS_PER_CLIENT }],
      RATE_WINDOW_MS,
    ),
  );
}
