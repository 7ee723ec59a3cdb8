/**
 * Rate limits of the OAuth routes (docs/auth-service.md). The id-token route's clients are counted
 * in one RateCounter Durable Object per app, its app window where the app's used tokens are burnt
 * (nonces.ts admitIdToken), only for a token never used before; the exchange in the object holding the app's one-time
 * codes (see exchange.ts), where one call counts the client, redeems the code and counts the
 * app's window when the code was live. Counting is exact under any concurrency.
 */
import { OAuthError } from '../../lib/oauth-error';
import type { RateCheck, RateDecision } from '../../objects/fixed-window';
import type { RequestContext } from '../../request-context';

/** What the counting here reaches: the RateCounter objects. */
export type LimiterContext = Pick<RequestContext, 'rateLimiter'>;

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

/**
 * Per-client limits of the session routes, per app and window: refresh (a mobile app refreshes
 * at most every few minutes; the room is for many users behind one carrier address) and logout.
 */
export const SESSION_LIMITS = { refresh: 300, logout: 100 } as const;

/**
 * Requests a client may make to auth paths naming no app, per window. Each costs a metadata
 * read; past the limit the client is answered 429 from the isolate's memory without one.
 */
export const UNKNOWN_APP_REQUESTS_PER_CLIENT = 30;

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
export async function countIdTokenRequest(
  ctx: LimiterContext,
  { slug, client }: { slug: string; client: string },
): Promise<void> {
  enforce(await ctx.rateLimiter.take(idTokenScope(slug), clientChecks('id-token', client), RATE_WINDOW_MS));
}

/** Counts one browser sign-in start of `client` for app `slug` (429 past the limit). */
export async function countSignInStart(
  ctx: LimiterContext,
  { slug, client }: { slug: string; client: string },
): Promise<void> {
  enforce(
    await ctx.rateLimiter.take(
      `sign-in:${slug}`,
      [{ key: `client:${client}`, limit: SIGN_IN_STARTS_PER_CLIENT }],
      RATE_WINDOW_MS,
    ),
  );
}

/** Counts one refresh or logout of `client` for app `slug` (429 past the limit). */
export async function countSessionRequest(
  ctx: LimiterContext,
  { route, slug, client }: { route: keyof typeof SESSION_LIMITS; slug: string; client: string },
): Promise<void> {
  enforce(
    await ctx.rateLimiter.take(
      `${route}:${slug}`,
      [{ key: `client:${client}`, limit: SESSION_LIMITS[route] }],
      RATE_WINDOW_MS,
    ),
  );
}

/** Clients refused for naming unknown apps, with when their window ends (this isolate's memory; bounded). */
const refusedUntil = new Map<string, number>();
const MAX_REFUSED = 10_000;

/** The RateCounter that counts every client's requests naming unknown apps. */
const UNKNOWN_APPS_SCOPE = 'unknown-apps';

/**
 * Runs `lookup` (which throws the 404 of an unknown app) for `client`: a client refused lately
 * is answered 429 before any read; each unknown app it names counts against
 * {@link UNKNOWN_APP_REQUESTS_PER_CLIENT} in the one object of {@link UNKNOWN_APPS_SCOPE}, and
 * past that it is 429 with Retry-After instead of 404.
 */
export async function lookUpApp<T>(
  ctx: LimiterContext,
  { client, lookup }: { client: string; lookup: () => Promise<T> },
): Promise<T> {
  const until = refusedUntil.get(client);
  if (until !== undefined) {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left > 0) throw new OAuthError(429, 'too many requests', undefined, left);
    refusedUntil.delete(client);
  }
  try {
    return await lookup();
  } catch (err) {
    if (!(err instanceof OAuthError) || err.status !== 404) throw err;
    // One object counts every client, so made-up slugs from any number of addresses add no
    // objects; it is reached only by requests that were 404 anyway.
    const decision = await ctx.rateLimiter.take(
      UNKNOWN_APPS_SCOPE,
      [{ key: `client:${client}`, limit: UNKNOWN_APP_REQUESTS_PER_CLIENT }],
      RATE_WINDOW_MS,
    );
    if (!decision.allowed) {
      if (refusedUntil.size >= MAX_REFUSED) refusedUntil.clear();
      refusedUntil.set(client, Date.now() + decision.retryAfter * 1000);
    }
    enforce(decision);
    throw err;
  }
}
