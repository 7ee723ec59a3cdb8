/** Pieces every project route uses: the `:id` parameter, access checks and ISO timestamps. */
import type { Context } from 'hono';
import type { ApiKeyCapabilities } from '../../db/schema';
import { type AppEnv, getReadDb } from '../context';
import type { Role } from '../domain/roles';
import { notFound } from '../lib/errors';
import { isUuid } from '../lib/ids';
import { z } from '../lib/openapi';
import { type ProjectAccess, projectAccess } from '../services/access';

/** `:id`, a project id or slug. */
export const ProjectParam = z.object({ id: z.string().min(1) });

/** Checks the caller may reach project `:id` with `role` (or, if given, a key with the capability). */
export function access(
  c: Context<AppEnv>,
  idOrSlug: string,
  role: Role,
  keyMay?: (capabilities: ApiKeyCapabilities) => boolean,
): Promise<ProjectAccess> {
  return projectAccess(getReadDb(c), c.get('principal'), idOrSlug, { role, keyMay }, c.get('membership'));
}

/** A timestamp as ISO 8601 UTC. */
export const iso = (date: Date): string => date.toISOString();

/** Throws 404 unless `value` is a uuid (ids in paths that are not uuids name nothing). */
export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw notFound(what);
  return value.toLowerCase();
}
