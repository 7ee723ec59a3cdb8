/** The Hono app: /healthz, the management API under /api/v1 and the auth service under /v1. */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import { pgCode } from './adapters/postgres-sql';
import { consoleApp } from './console';
import { type AppEnv, closeDb, getHttpDb } from './context';
import { loadConfig } from './env';
import { isCrossSiteWrite } from './lib/cross-site';
import { ApiError, forbidden } from './lib/errors';
import { newId } from './lib/ids';
import { OAuthError } from './lib/oauth-error';
import { routeGroup } from './lib/openapi';
import { managementRoutes } from './routes';
import { oauthRoutes } from './routes/oauth';
import { readsWithCaller } from './routes/shared';
import { admitCaller, PROJECT_PATH } from './services/caller-admission';
import { callerRead, resolveCaller, SESSION_COOKIE } from './services/principal';

const MAX_BODY_BYTES = 256 * 1024;

function bearerOf(c: Context<AppEnv>): string | undefined {
  const header = c.req.header('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] ?? '\u0000malformed';
  }
  return getCookie(c, SESSION_COOKIE);
}

/** SQLSTATEs of text Postgres cannot store (a NUL character): the request's fault, whatever field carried it. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** Whether `err`, or an error it wraps (drizzle wraps the driver's), is one of those. */
function isUnstorableText(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++, e = (e as { cause?: unknown }).cause) {
    if (UNSTORABLE_TEXT.has(pgCode(e) ?? '')) return true;
  }
  return false;
}

function errorResponse(c: Context<AppEnv>, err: Error): Response {
  if (err instanceof OAuthError) {
    if (err.retryAfter !== undefined) c.header('Retry-After', String(err.retryAfter));
    return c.json(err.code ? { error: err.message, code: err.code } : { error: err.message }, err.status);
  }
  if (err instanceof ApiError) {
    return c.json(
      { error: { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) } },
      err.status,
    );
  }
  if (err instanceof HTTPException && err.status < 500) {
    const message = err.message || 'invalid request';
    if (c.req.path.startsWith('/v1/')) return c.json({ error: message }, err.status);
    return c.json({ error: { code: 'BAD_REQUEST', message, field: 'body' } }, 400);
  }
  if (isUnstorableText(err)) {
    const message = 'text in the path or body may not contain NUL characters';
    if (c.req.path.startsWith('/v1/')) return c.json({ error: message }, 400);
    return c.json({ error: { code: 'BAD_REQUEST', message } }, 400);
  }
  const requestId = c.get('requestId') ?? newId();
  console.error(`request ${requestId} failed:`, err instanceof Error ? err.stack : String(err));
  return c.json({ error: { code: 'INTERNAL', message: 'internal error', request_id: requestId } }, 500);
}

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

const JSON_MEDIA_TYPE = /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * Every request body of the API is JSON (CONTRACT §3), so a body sent without a JSON media type
 * (curl -d's form type, fetch's text/plain, none at all) is read as JSON rather than refused:
 * one that is not JSON still gets the 400 of a malformed body. Cookie-authenticated writes from
 * another site are refused before any body is read, so this opens no cross-site route.
 */
function bodyReadAsJson(req: Request): Request {
  if (!req.body || req.headers.get('content-length') === '0') return req;
  if (JSON_MEDIA_TYPE.test(req.headers.get('content-type') ?? '')) return req;
  const headers = new Headers(req.headers);
  headers.set('content-type', 'application/json');
  return new Request(req, { headers });
}

/** Builds the Worker's fetch app. */
export function buildApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();

  app.use('*', async (c, next) => {
    c.set('requestId', c.req.header('cf-ray') ?? newId());
    c.set('config', loadConfig(c.env));
    if (!c.req.path.startsWith('/console')) c.req.raw = bodyReadAsJson(c.req.raw);
    try {
      await next();
      await drainUnreadBody(c.req.raw);
    } finally {
      const done = closeDb(c);
      try {
        c.executionCtx.waitUntil(done);
      } catch {
        await done;
      }
    }
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/', (c) => c.redirect('/console', 302));
  app.route(
    '/console',
    consoleApp((req, env, ctx) => app.fetch(req, env, ctx)),
  );

  const api = routeGroup<AppEnv>();
  api.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError('BAD_REQUEST', `body: larger than ${MAX_BODY_BYTES} bytes`, 'body');
      },
    }),
  );
  api.use('*', async (c, next) => {
    if (c.req.path === '/api/v1/openapi.json') return next();
    const viaCookie = !c.req.header('authorization') && getCookie(c, SESSION_COOKIE) !== undefined;
    if (viaCookie && isCrossSiteWrite(c.req.raw, c.get('config').PUBLIC_BASE_URL)) {
      throw forbidden(
        'a request from another site cannot use the console session cookie; send a Bearer token',
      );
    }
    const projectRef = PROJECT_PATH.exec(c.req.path)?.[1];
    // A read whose handler sends the caller lookup with its own query (routes/shared.ts
    // readWithCaller) gets it pending: one round trip for both.
    if (readsWithCaller(c)) {
      const read = await callerRead(c.get('config'), bearerOf(c), projectRef);
      if ('statement' in read) {
        c.set('pendingCaller', read);
        return next();
      }
    }
    const caller = await resolveCaller(getHttpDb(c), c.get('config'), bearerOf(c), projectRef);
    admitCaller(caller, c.req.method, c.req.path);
    c.set('principal', caller.principal);
    if (caller.membership) c.set('membership', caller.membership);
    return next();
  });
  api.route('/', managementRoutes);
  app.route('/api/v1', api);
  app.route('/v1', oauthRoutes);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.doc31('/api/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Tether management API',
      version: '1.0.0',
      description:
        'Connections between sites and services. Errors: {"error":{"code","message"}}, checked in the ' +
        'order 401 (credentials), 403 (a key or the operator where not allowed), 404 (the project), ' +
        '403 (the role), 404 (the site, service or auth app the path names), then 400 (the body).',
    },
  });

  app.notFound((c) => {
    if (c.req.path.startsWith('/v1/')) return c.json({ error: 'not found' }, 404);
    return c.json({ error: { code: 'NOT_FOUND', message: `no route ${c.req.method} ${c.req.path}` } }, 404);
  });
  app.onError((err, c) => errorResponse(c, err));
  return app;
}
