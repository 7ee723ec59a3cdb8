/**
 * The management side of the Worker: /healthz, the console, the API reference and the management
 * API under /api/v1. Loaded on the first request that is not the auth service's (app.ts), so an
 * isolate that only answers sign-ins never builds its routes, schemas or OpenAPI document.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler, NotFoundHandler } from 'hono';
import { createHttpDb } from '../db/client';
import { apiDocument } from './api-document';
import type { AppEnv } from './app-env';
import type { Bindings, Config } from './config';
import { consoleApp } from './console';
import type { WorkerOptions } from './container';
import { loadConfig } from './kinds/registry';
import { allowedMethods, methodNotAllowed } from './lib/allowed-methods';
import { boundedBodies, isJsonMediaType } from './lib/request-limits';
import { onError } from './on-error';
import { requestScope } from './request-scope';
import { apiRoutes } from './routes/api';
import { apiDocsRoutes } from './routes/api-docs';
import { cliTokenRoutes } from './routes/cli-token';
import { healthRoutes } from './routes/health';
import { kindsRoutes } from './routes/kinds';
import { namedServiceIn, withServiceIds } from './use-cases/resources/by-name';

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

const apiBodiesAsJson: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.req.raw = bodyReadAsJson(c.req.raw);
  return next();
};

/**
 * The router's answer when no route took the request, in the management API's error shape: 405
 * with `Allow` for a path that takes other methods (contract §2), else 404.
 */
function notFound(methodsAt: (path: string) => string[]): NotFoundHandler<AppEnv> {
  return (c) => {
    const allow = methodsAt(c.req.path);
    if (allow.length === 0)
      return c.json({ error: { code: 'NOT_FOUND', message: `no route ${c.req.method} ${c.req.path}` } }, 404);
    const answer = methodNotAllowed(c.req.method, c.req.path, allow);
    c.header('Allow', answer.allow);
    return c.json({ error: { code: 'METHOD_NOT_ALLOWED', message: answer.message } }, 405);
  };
}

/** Builds the management app. */
export function buildManagementApp(options: WorkerOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();

  app.use('*', requestScope(options));
  app.use('/api/*', apiBodiesAsJson);
  app.use('/console/*', boundedBodies);
  app.use('/api/*', boundedBodies);
  app.route('/', healthRoutes);
  app.get('/', (c) => c.redirect('/console', 302));
  app.route(
    '/console',
    consoleApp((req, env, ctx) => app.fetch(req, env, ctx)),
  );

  // The reference page is public and needs no caller: it is answered before the API's middleware.
  app.route('/api/v1', apiDocsRoutes);
  // `tether login`'s token and device routes take no credential: what proves a request is in its body.
  app.route('/api/v1', cliTokenRoutes);
  // What the deployment offers (kinds, engines) is public too: it says nothing of any project.
  app.route('/api/v1', kindsRoutes);
  app.route('/api/v1', apiRoutes);

  // Built on first request and kept for the isolate: the routes never change while it lives.
  let served: { base: string; doc: Record<string, unknown> } | undefined;
  app.get('/api/v1/openapi.json', (c) => {
    const base = c.get('config').PUBLIC_BASE_URL;
    if (served?.base !== base) served = { base, doc: apiDocument(base) };
    return c.json(served.doc);
  });

  app.notFound(notFound(allowedMethods(app.routes)));
  app.onError(onError);
  return app;
}

/**
 * A request whose path names a service by name, routed as the same path with its id. Without a
 * valid environment it goes on unchanged, and the app answers BAD_ENVIRONMENT as for any path.
 */
export async function servicesByName(request: Request, env: Bindings): Promise<Request> {
  if (!namedServiceIn(new URL(request.url).pathname)) return request;
  let config: Config;
  try {
    config = loadConfig(env);
  } catch {
    return request;
  }
  return withServiceIds(request, () => createHttpDb(config.DATABASE_URL, config.NEON_HTTP_ENDPOINT));
}
