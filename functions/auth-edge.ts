/**
 * The auth edge: every request under /v1 (the auth service) goes through this one pipeline and
 * nothing else: the request scope (its id, its context, its database closed afterwards), the
 * auth service's own middleware (CORS, body limits and media type, the per-client and app-wide
 * windows; routes/oauth/index.ts), the route's validation and handler, and the one error
 * handler. It imports no management route, schema, console or OpenAPI document, so an isolate
 * that answers sign-ins starts with a small module graph (app.ts loads the rest on demand).
 */
import { Hono } from 'hono';
import type { AppEnv } from './app-env';
import type { WorkerOptions } from './container';
import { allowedMethods, methodNotAllowed } from './lib/allowed-methods';
import { onError } from './on-error';
import { requestScope } from './request-scope';
import { oauthRoutes } from './routes/oauth';

/** Builds the auth edge: the auth service mounted under /v1 behind the request scope. */
export function buildAuthEdge(options: WorkerOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestScope(options));
  app.route('/v1', oauthRoutes);
  const methodsAt = allowedMethods(app.routes);
  // A path that takes other methods is 405 with Allow (contract §2), in the auth service's shape.
  app.notFound((c) => {
    const allow = methodsAt(c.req.path);
    if (allow.length === 0) return c.json({ error: 'not found' }, 404);
    const answer = methodNotAllowed(c.req.method, c.req.path, allow);
    c.header('Allow', answer.allow);
    return c.json({ error: answer.message }, 405);
  });
  app.onError(onError);
  return app;
}
