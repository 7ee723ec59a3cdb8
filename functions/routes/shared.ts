/** Pieces every project route uses: the `:id` parameter, access checks and ISO timestamps. */
import type { SQL } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { type AppEnv, getHttpDb } from '../context';
import type { Role } from '../domain/roles';
import { ApiError } from '../lib/errors';
import { isUuid } from '../lib/ids';
import { pathBeforeBody, z } from '../lib/openapi';
import type { RequestContext } from '../request-context';
import { type ActivitySource, activitySourceOf, CLIENT_HEADER } from '../services/activity';
import { type BatchQuery, callerAccountId, resolveCallerWith } from '../services/caller/api-caller';
import {
  type ApiKeyCapabilities,
  type ProjectAccess,
  projectAccess,
} from '../services/caller/project-access';
import { admitCaller } from '../services/caller-admission';
import { findSite, type SiteRow } from '../services/sites';

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

/**
 * The route middleware of a write with a JSON body that leaves its caller's lookup pending
 * (`middleware: [readsCaller, callerBeforeMalformedJson]`): a body that does not parse is
 * refused by the body validator before any hook runs, so then the caller is read and admitted
 * here first (the 401, 403 and 404 the caller earns come before that 400). The parsed body is
 * kept for the validator.
 */
export const callerBeforeMalformedJson: MiddlewareHandler<AppEnv> = async (c, next) => {
  const parses = await c.req.json().then(
    () => true,
    () => false,
  );
  if (!parses) await readWithCaller(c, []);
  return next();
};

/**
 * {@link callerBeforeMalformedJson} for a route whose JSON body is optional: a request with no
 * body and no content type is valid as it is and leaves the caller's lookup to the handler.
 */
export const callerBeforeMalformedOptionalJson: MiddlewareHandler<AppEnv> = (c, next) =>
  !c.req.header('content-type') && c.req.raw.body === null ? next() : callerBeforeMalformedJson(c, next);

/** Whether the route the request matched reads its caller with its own query. */
export function readsWithCaller(c: Context<AppEnv>): boolean {
  return matchedRoutes(c).some((r) => r.handler === readsCaller);
}

/**
 * SQL for the calling account's id, for a query sent with the caller's lookup; call it before
 * {@link readWithCaller}. Null for a caller that is not an account.
 */
export function callerAccount(c: Context<AppEnv>): SQL {
  return callerAccountId(c.get('pendingCaller'), c.get('principal'));
}

/**
 * Runs `queries` (built on `getHttpDb(c)`, not awaited) and, when the caller is still to be
 * read, its lookup with them: one round trip. The caller is admitted (401, 403, 404 of the
 * project, as the middleware would) before any answer is returned; `c.get('principal')` and
 * `c.get('membership')` are set after it. Returns what each query returned.
 */
export async function readWithCaller<T extends readonly BatchQuery[]>(
  c: Context<AppEnv>,
  queries: [...T],
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const pending = c.get('pendingCaller');
  c.set('pendingCaller', undefined);
  const { caller, answers } = await resolveCallerWith(getHttpDb(c), pending, queries);
  if (caller) {
    admitCaller(caller, c.req.method, c.req.path);
    c.set('principal', caller.principal);
    if (caller.membership) c.set('membership', caller.membership);
  }
  return answers as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/**
 * The validation hook of a write that leaves its caller's lookup pending (`readsCaller`) and has
 * no other read to make first: the caller is read and admitted (401, 403, 404 of the project,
 * 403 of the role) before a bad path parameter or body is 400, as for any other route.
 */
export const callerBeforeBody = pathBeforeBody<AppEnv>(async (c) => {
  await readWithCaller(c, []);
});

/**
 * Who the request's changes are recorded as in the Activity record (its caller, the client it
 * names in `X-Tether-Client`, its address); call it once the caller is read.
 */
export function activityBy(c: Context<AppEnv>): ActivitySource {
  return activitySourceOf(
    c.get('principal'),
    c.req.header(CLIENT_HEADER),
    c.req.header(c.get('config').CLIENT_IP_HEADER),
  );
}

/** The request's {@link RequestContext}, what its services take first (built once, container.ts openRequest). */
export const requestContext = (c: Context<AppEnv>): RequestContext => c.get('ctx');

/** A timestamp as ISO 8601 UTC. */
export const iso = (date: Date): string => date.toISOString();

/** Throws 404 unless `value` is a uuid (ids in paths that are not uuids name nothing). */
export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw new ApiError('NOT_FOUND', `${what} not found`);
  return value.toLowerCase();
}

/** Site `:siteId` (its id or its slug) of the project, or 404. */
export function loadSite(c: Context<AppEnv>, projectId: string, siteId: string): Promise<SiteRow> {
  return findSite(getHttpDb(c), projectId, siteId);
}
