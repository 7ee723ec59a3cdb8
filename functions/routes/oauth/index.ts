/**
 * The auth service, mounted under /v1: /{appSlug}/auth/..., /oauth/..., /logout and the JWKS.
 * Rate-limited routes are counted here, before validation or any other work; the exchange's
 * count also redeems the code a well-formed body presents, in the same Durable Object call.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../../app-env';
import { boundedBodies, jsonAuthPosts } from '../../lib/request-limits';
import { countExchange } from '../../use-cases/sign-in/exchange';
import { countIdTokenRequest, countSessionRequest } from '../../use-cases/sign-in/rate-limit';
import { oauthServerGroups, registeredOriginCors, STANDARD_ENDPOINT, standardErrors } from '../oauth-server';
import { requestContext } from '../shared';
import { browserRoutes } from './browser';
import { readableForBrowsers } from './browser-problems';
import { exchangeRoutes, wellFormedExchange } from './exchange';
import { introspectRoutes } from './introspect';
import { jwksRoutes } from './jwks';
import { nonceRoutes } from './nonce';
import { clientOf, knownSlug, oauthGroup, regionOfRequest, SCRIPT_CORS } from './oauth-shared';
import { tokenRoutes } from './tokens';

const countedIdToken: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== 'POST') return next();
  await countIdTokenRequest(requestContext(c), { slug: await knownSlug(c), client: clientOf(c) });
  return next();
};

/** Refresh and logout: each client counted per app, before any other work. */
const countedSession =
  (route: 'refresh' | 'logout'): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (c.req.method !== 'POST') return next();
    await countSessionRequest(requestContext(c), { route, slug: await knownSlug(c), client: clientOf(c) });
    return next();
  };

const countedExchange: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== 'POST') return next();
  const slug = await knownSlug(c);
  const input = await wellFormedExchange(c);
  c.set(
    'countedExchange',
    await countExchange(requestContext(c), {
      slug,
      client: clientOf(c),
      code: input?.code ?? null,
      region: regionOfRequest(c),
    }),
  );
  return next();
};

/**
 * The token routes, logout and the JWKS answer scripts of any origin (CORS without credentials):
 * a web app or a webview (Capacitor, Ionic) exchanges, signs in and refreshes from its own
 * origin, and what proves such a request is in its body (code and verifier, ID token, refresh
 * token), never a cookie. Preflights are answered before any counting.
 */
const callableFromScripts = cors(SCRIPT_CORS);

/**
 * The standard token, revoke and userinfo endpoints answer CORS for the app's registered origins
 * instead, and their refusals in RFC 6749's shape (routes/oauth-server).
 */
const standardOrScripts: MiddlewareHandler<AppEnv> = (c, next) => {
  // The authorization endpoint is a navigation, like /auth/{provider}: no CORS.
  if (c.req.path.endsWith('/oauth/authorize')) return next();
  return STANDARD_ENDPOINT.test(c.req.path) ? registeredOriginCors(c, next) : callableFromScripts(c, next);
};

const standardErrorsOnly: MiddlewareHandler<AppEnv> = (c, next) =>
  STANDARD_ENDPOINT.test(c.req.path) ? standardErrors(c, next) : next();

/** The auth service with `groups` mounted, behind the middleware every auth route goes through. */
function authService(groups: ReturnType<typeof oauthGroup>[]): ReturnType<typeof oauthGroup> {
  const routes = oauthGroup();
  for (const path of ['/:appSlug/oauth/*', '/:appSlug/logout', '/:appSlug/.well-known/*'])
    routes.use(path, standardOrScripts);
  routes.use('/:appSlug/oauth/*', standardErrorsOnly);
  routes.use('/:appSlug/auth/*', readableForBrowsers);
  routes.use('/:appSlug/oauth/authorize', readableForBrowsers);
  // Bodies are bounded and typed before anything counts or reads them; CORS headers go on the refusals.
  routes.use('*', boundedBodies, jsonAuthPosts);
  routes.use('/:appSlug/oauth/exchange', countedExchange);
  routes.use('/:appSlug/oauth/id-token', countedIdToken);
  routes.use('/:appSlug/oauth/refresh', countedSession('refresh'));
  routes.use('/:appSlug/logout', countedSession('logout'));
  for (const group of groups) routes.route('/', group);
  return routes;
}

export const oauthRoutes = authService([
  exchangeRoutes,
  tokenRoutes,
  nonceRoutes,
  introspectRoutes,
  browserRoutes,
  jwksRoutes,
  ...oauthServerGroups,
]);
