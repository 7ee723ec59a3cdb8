/** Pieces every project route uses: the `:id` parameter, access checks and ISO timestamps. */
import type { Context } from 'hono';
import type { ApiKeyCapabilities } from '../../db/schema';
import { type AppEnv, getHttpDb } from '../context';
import type { Role } from '../domain/roles';
import { notFound } from '../lib/errors';
import { isUuid } from '../lib/ids';
import { pathBeforeBody, z } from '../lib/openapi';
import { type ProjectAccess, projectAccess } from '../services/access';
import { siteAccess } from '../services/connections/site-access';

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
