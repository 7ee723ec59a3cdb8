/** Pieces every project route uses: the `:id` parameter, access checks and ISO timestamps. */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { ApiKeyCapabilities } from '../../db/schema';
import { type AppEnv, getHttpDb } from '../context';
import type { Role } from '../domain/roles';
import { notFound } from '../lib/errors';
import { isUuid } from '../lib/ids';
import { pathBeforeBody, z } from '../lib/openapi';
import { type ProjectAccess, projectAccess } from '../services/access';
import { admitCaller } from '../services/caller-admission';
import { siteAccess } from '../services/connections/site-access';
import { resolveCallerWith, type Statement } from '../services/principal';

/** `:id`, a project id or slug. */
export const ProjectParam = z.object({ id: z.string().min(1) });

/** Checks the caller may reach project `:id` with `role` (or, if given, a key with the capability). */
export function access(
  c: Context<AppEnv>,
  idOrSlug: string,
  role: Role,
  keyMay?: (capabilities: ApiKeyCapabilities) => boolean,
): Promise<ProjectAccess> {
  return projectAccess(getHttpDb(c), c.get('principal'), idOrSlug, { role, keyMay }, c.get('membership'));
}

/**
 * The route middleware of a read whose handler calls {@link readWithCaller} before anything
 * that needs the caller (`apiRoute({ ..., middleware: [readsCaller] })`): the API's middleware
 * sees it among the matched routes and leaves the caller's lookup to the handler. It does
 * nothing itself.
 */
export const readsCaller: MiddlewareHandler<AppEnv> = (_c, next) => next();

/** Whether the route the request matched reads its caller with its own query. */
export function readsWithCaller(c: Context<AppEnv>): boolean {
  return matchedRoutes(c).some((r) => r.handler === readsCaller);
}

/**
 * Runs `statements` and, when the caller is still to be read, its lookup with them: one round
 * trip. The caller is admitted (401, 403, 404 of the project, as the middleware would) before
 * any row is returned; `c.get('principal')` and `c.get('membership')` are set after it.
 */
export async function readWithCaller(
  c: Context<AppEnv>,
  statements: readonly Statement[],
): Promise<Array<Array<Record<string, unknown>>>> {
  const pending = c.get('pendingCaller');
  c.set('pendingCaller', undefined);
  const { caller, rows } = await resolveCallerWith(getHttpDb(c), pending, statements);
  if (caller) {
    admitCaller(caller, c.req.method, c.req.path);
    c.set('principal', caller.principal);
    if (caller.membership) c.set('membership', caller.membership);
  }
  return rows;
}

/**
 * The validation hook of a site's write routes: a body that fails validation is 400 only for a
 * site the caller may change; the 404 of an unknown site and the 403 of a key come first.
 */
export const siteBeforeBody = pathBeforeBody<AppEnv>((c) => {
  const { id = '', siteId = '' } = c.req.param();
  return siteAccess(getHttpDb(c), c.get('principal'), id, siteId, 'write');
});

/** A timestamp as ISO 8601 UTC. */
export const iso = (date: Date): string => date.toISOString();

/** Throws 404 unless `value` is a uuid (ids in paths that are not uuids name nothing). */
export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw notFound(what);
  return value.toLowerCase();
}
