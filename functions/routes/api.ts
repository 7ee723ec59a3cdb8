/**
 * The management API under /api/v1 behind its two gates: answers are never cached (they carry
 * secrets), and a caller is admitted before any route runs (a route that declares its caller
 * admits it itself, routes/declared-reads.ts; a path no route takes is 401 to a caller without valid
 * credentials before its 404).
 */

import type { OpenAPIHono } from '@hono/zod-openapi';
import { getCookie } from 'hono/cookie';
import type { AppEnv } from '../app-env';
import { isCrossSiteWrite } from '../lib/cross-site';
import { ApiError } from '../lib/errors';
import { routeGroup } from '../lib/openapi';
import { admitAnyCaller } from '../use-cases/caller/admission';
import { SESSION_COOKIE } from '../use-cases/caller/api-caller';
import { bearerOf, declaresCaller } from './declared-reads';
import { requestContext } from './shared';

/** The API's gates in front of `groups` (route groups of routes/index.ts, or none: the gates alone). */
export function apiRoutes(groups: ReadonlyArray<OpenAPIHono<AppEnv>>): OpenAPIHono<AppEnv> {
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
    // A route that declares its caller's access reads and admits it itself (routes/declared-reads.ts).
    if (declaresCaller(c)) return next();
    // Every route declares its caller; a path that names none is still refused to a caller
    // without valid credentials (401) before its 404, so no route's existence is revealed.
    c.set('principal', await admitAnyCaller(requestContext(c), bearerOf(c)));
    return next();
  });
  for (const group of groups) api.route('/', group);
  return api;
}
