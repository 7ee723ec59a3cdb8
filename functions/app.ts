/** The Hono app: /healthz, the management API under /api/v1 and the auth service under /v1. */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler, NotFoundHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { createHttpDb } from '../db/client';
import { apiDocument, methodsOf } from './api-document';
import { type Bindings, type Config, loadConfig } from './config';
import { consoleApp } from './console';
import { buildServices, openRequest, type RequestScope, type WorkerOptions } from './container';
import { type AppEnv, getDb, getHttpDb } from './context';
import { exchangeSlugOf, serveExchange } from './exchange-fast-path';
import { isCrossSiteWrite } from './lib/cross-site';
import { timingSafeEqual } from './lib/crypto';
import { ApiError } from './lib/errors';
import { newId } from './lib/ids';
import { withRequestId } from './lib/logger';
import { routeGroup } from './lib/openapi';
import { boundedBodies, isJsonMediaType } from './lib/request-limits';
import { asError, onError } from './on-error';
import { managementRoutes } from './routes';
import { apiDocsRoutes } from './routes/api-docs';
import { cliTokenRoutes } from './routes/cli-token';
import { exchangeOnlyRoutes, oauthRoutes } from './routes/oauth';
import { isPlainExchange } from './routes/oauth/exchange';
import { bearerOf, declaresCaller } from './routes/reads';
import { activityBy } from './routes/shared';
import { resolveCaller, SESSION_COOKIE } from './services/caller/api-caller';
import { reconcilerHealth } from './services/reconciler-state';
import { namedServiceIn, withServiceIds } from './services/resources/by-name';

/** How much of a body nobody read is drained before answering; larger ones are abandoned. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads what is left of a request body no handler read (a 401, a 404 or a refusal answered
 * before the body). workerd resets a connection whose request body was left unread, so a
 * client still sending it would see a reset instead of the answer.
 */
async function drainUnreadBody(req: Request): Promise<void> {
  if (!req.body || req.bodyUsed || req.body.locked) return;
  const reader = req.body.getReader();
  try {
    for (let seen = 0; seen <= DRAIN_LIMIT_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away; there is nobody left to answer.
  }
}

/**
 * Every request body of the API is JSON (contract §3), so a body sent without a JSON media type
 * (curl -d's form type, fetch's text/plain, none at all) is read as JSON rather than refused:
 * one that is not JSON still gets the 400 of a malformed body. Cookie-authenticated writes from
 * another site are refused before any body is read, so this opens no cross-site route.
 */
function bodyReadAsJson(req: Request): Request {
  if (!req.body || req.headers.get('content-length') === '0') return req;
  if (isJsonMediaType(req.headers.get('content-type') ?? '')) return req;
  const headers = new Headers(req.headers);
  headers.set('content-type', 'application/json');
  return new Request(req, { headers });
}

/**
 * What every request goes through first: its id, its body read as JSON, its log context and its
 * context (built once, container.ts openRequest); afterwards an unread body is drained and the
 * request's database closed.
 */
function requestScope(options: WorkerOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = c.req.header('cf-ray') ?? newId();
    c.set('requestId', requestId);
    // Only the management API: the auth service takes JSON declared as JSON (request-limits.ts).
    if (c.req.path.startsWith('/api/')) c.req.raw = bodyReadAsJson(c.req.raw);
    await withRequestId(requestId, async () => {
      let scope: RequestScope | undefined;
      try {
        // The composition root: a missing variable, secret or binding is answered 500 BAD_ENVIRONMENT here.
        const services = buildServices(c.env, options);
        scope = openRequest(services, () => activityBy(c));
        c.set('ctx', scope.ctx);
        c.set('config', services.config);
        await next();
      } catch (err) {
        // Hono hands only Errors to the error handler; anything else thrown reaches it wrapped.
        throw asError(err);
      } finally {
        await drainUnreadBody(c.req.raw);
        if (scope?.opened()) {
          const done = scope.close();
          try {
            c.executionCtx.waitUntil(done);
          } catch {
            await done;
          }
        }
      }
    });
  };
}

/** Builds the Worker's fetch app. */
export function buildApp(options: WorkerOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();

  app.use('*', requestScope(options));
  app.use('/console/*', boundedBodies);
  app.use('/api/*', boundedBodies);
  app.get('/healthz', async (c) => {
    if (c.req.query('detail') === undefined) return c.json({ ok: true });
    // The detail is the operator's: what the reconciler is doing, failing items included.
    const token = bearerOf(c);
    if (!token || !timingSafeEqual(token, c.get('config').OPERATOR_TOKEN))
      throw new ApiError('UNAUTHORIZED', 'the detail needs the operator token');
    c.header('Cache-Control', 'no-store');
    return c.json({ ok: true, reconciler: await reconcilerHealth(getDb(c)) });
  });
  app.get('/', (c) => c.redirect('/console', 302));
  app.route(
    '/console',
    consoleApp((req, env, ctx) => app.fetch(req, env, ctx)),
  );

  // The reference page is public and needs no caller: it is answered before the API's middleware.
  app.route('/api/v1', apiDocsRoutes);
  // `tether login`'s token and device routes take no credential: what proves a request is in its body.
  app.route('/api/v1', cliTokenRoutes);
  const api = routeGroup<AppEnv>();
  // Management answers carry secrets (credentials, tokens, keys, effective variables): no cache keeps any.
  api.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  api.use('*', async (c, next) => {
    if (c.req.path === '/api/v1/openapi.json') return next();
    const viaCookie = !c.req.header('authorization') && getCookie(c, SESSION_COOKIE) !== undefined;
    if (viaCookie && isCrossSiteWrite(c.req.raw, c.get('config').PUBLIC_BASE_URL)) {
      throw new ApiError(
        'FORBIDDEN',
        'a request from another site cannot use the console session cookie; send a Bearer token',
      );
    }
    // A route that declares its caller's access reads and admits it itself (routes/reads.ts).
    if (declaresCaller(c)) return next();
    // Every route declares its caller; a path that names none is still refused to a caller
    // without valid credentials (401) before its 404, so no route's existence is revealed.
    const { principal } = await resolveCaller(getHttpDb(c), c.get('config'), bearerOf(c));
    if (principal.type === 'anonymous' || principal.type === 'invalid') throw new ApiError('UNAUTHORIZED');
    c.set('principal', principal);
    return next();
  });
  api.route('/', managementRoutes);
  app.route('/api/v1', api);
  app.route('/v1', oauthRoutes);

  // Built on first request and kept for the isolate: the routes never change while it lives.
  let served: { base: string; doc: Record<string, unknown> } | undefined;
  app.get('/api/v1/openapi.json', (c) => {
    const base = c.get('config').PUBLIC_BASE_URL;
    if (served?.base !== base) served = { base, doc: apiDocument(base) };
    return c.json(served.doc);
  });

  app.notFound(notFound);
  app.onError(onError);
  return app;
}

/**
 * The router's answer when no route took the request, in the body of the route family the path
 * belongs to: 405 with `Allow` for a path that takes other methods (contract §2), else 404.
 */
const notFound: NotFoundHandler<AppEnv> = (c) => {
  const oauth = c.req.path.startsWith('/v1/');
  const allow = methodsOf(c.req.path);
  if (allow.length > 0) {
    c.header('Allow', allow.join(', '));
    const message = `${c.req.method} is not a method of ${c.req.path}; it takes ${allow.join(', ')}`;
    return oauth
      ? c.json({ error: message }, 405)
      : c.json({ error: { code: 'METHOD_NOT_ALLOWED', message } }, 405);
  }
  if (oauth) return c.json({ error: 'not found' }, 404);
  return c.json({ error: { code: 'NOT_FOUND', message: `no route ${c.req.method} ${c.req.path}` } }, 404);
};

/** The exchange alone: the same request scope and auth middleware, with a router of one route. */
function buildExchangeApp(options: WorkerOptions): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use('*', requestScope(options));
  app.route('/v1', exchangeOnlyRoutes);
  app.notFound(notFound);
  app.onError(onError);
  return app;
}

/**
 * A request whose path names a service by name, routed as the same path with its id. Without a
 * valid environment it goes on unchanged, and the app answers BAD_ENVIRONMENT as for any path.
 */
async function servicesByName(request: Request, env: Bindings): Promise<Request> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch {
    return request;
  }
  return withServiceIds(request, () => createHttpDb(config.DATABASE_URL, config.NEON_HTTP_ENDPOINT));
}

/**
 * The Worker's fetch. The code exchange, paid once per mobile sign-in and held to its one
 * Durable Object call, takes a fast path: a plain JSON exchange (the mobile SDKs' every one) of
 * an app the isolate knows is answered without the framework (exchange-fast-path.ts); any other
 * exchange goes to the route behind its middleware, with a router of one route. Both skip the
 * whole app's router (some 150 routes) and the middleware of paths they are not. Everything
 * else, the exchange's CORS preflight included, goes to the whole app.
 */
export function buildFetch(
  options: WorkerOptions = {},
): (request: Request, env: Bindings, ctx: ExecutionContext) => Response | Promise<Response> {
  const app = buildApp(options);
  const exchange = buildExchangeApp(options);
  const routed = (request: Request, env: Bindings, ctx: ExecutionContext) =>
    exchange.fetch(request, env, ctx);
  return (request, env, ctx) => {
    const slug = request.method === 'POST' ? exchangeSlugOf(request.url) : null;
    if (slug === null) {
      if (!namedServiceIn(new URL(request.url).pathname)) return app.fetch(request, env, ctx);
      return servicesByName(request, env).then((byId) => app.fetch(byId, env, ctx));
    }
    if (!isPlainExchange(request)) return routed(request, env, ctx);
    return serveExchange(request, env, ctx, slug, routed, options);
  };
}
