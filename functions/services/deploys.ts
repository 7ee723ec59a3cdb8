/**
 * Deploys and rollbacks of a site. Every deploy and every rollback derives the variables afresh,
 * so a rollback gets exactly what a new deploy gets (current credentials and connections, never
 * a stale copy). The listing is read with the caller's lookup (routes/shared.ts readWithCaller):
 * one round trip.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { HttpDb, Queryable } from '../../db/client';
import { deploys } from '../../db/schema';
import type { Adapters } from '../adapters';
import { siteRef } from '../domain/names';
import type { Config } from '../env';
import { ApiError } from '../lib/errors';
import { isUuid, newId } from '../lib/ids';
import { deriveSiteEnv } from './connections/derive';
import type { ConnectionDeps } from './connections/prepare';
import { switchLegacyNow } from './credentials/switch';
import { projectIdOf } from './principal';

/** How many deploys the listing shows, newest first. */
export const DEPLOYS_LISTED = 50;

/** A deploy as the listing returns it: id, rollback_of, created_at, env_names. */
export type DeployTuple = [string, string | null, string, string[]];

/**
 * Site `siteIdOrSlug` of the project `ref` names, with its newest deploys as {@link DeployTuple}s
 * in column `deploys`; no row when the project has no such site.
 */
export function deploysOfSite(db: HttpDb, ref: string, siteIdOrSlug: string) {
  const site = siteRef(siteIdOrSlug);
  const id = site && 'id' in site ? site.id : null;
  const slug = site && 'slug' in site ? site.slug : null;
  return db.execute<{ site_id: string; deploys: DeployTuple[] }>(sql`
    select s.id as site_id, coalesce((
      select json_agg(json_build_array(d.id, d.rollback_of, d.created_at, d.env_names) order by d.created_at desc, d.id)
        from (select * from deploys where site_id = s.id order by created_at desc, id limit ${DEPLOYS_LISTED}) d
    ), '[]') as deploys
      from sites s
     where s.project_id = ${projectIdOf(ref)} and (s.id = ${id}::uuid or s.slug = ${slug})`);
}

/** A deploy as the API shows it. */
export interface DeployBody {
  id: string;
  created_at: string;
  env_names: string[];
}

/** The site's effective variables now; 404 when the site went away meanwhile. */
export async function effectiveEnv(
  db: Queryable,
  config: Config,
  adapters: Adapters,
  siteId: string,
): Promise<Record<string, string>> {
  const env = await deriveSiteEnv(db, config, adapters, siteId);
  if (!env) throw new ApiError('NOT_FOUND', 'site not found');
  return env.effective;
}

/** Records a deploy (or a rollback of `rollbackOf`) of what the site is handed now. */
export async function recordDeploy(
  deps: ConnectionDeps,
  projectId: string,
  siteId: string,
  rollbackOf: string | null,
): Promise<DeployBody> {
  // Legacy sites switch to their own credentials at their next deploy, which then hands them.
  await switchLegacyNow(deps, projectId);
  const reads = deps.reads ?? deps.db;
  const names = Object.keys(await effectiveEnv(reads, deps.config, deps.adapters, siteId)).sort();
  const [row] = await reads
    .insert(deploys)
    .values({ id: newId(), siteId, rollbackOf, envNames: names })
    .returning();
  if (!row) throw new Error('the deploy was not recorded');
  return { id: row.id, created_at: row.createdAt.toISOString(), env_names: row.envNames };
}

/** The id of deploy `deployId` of the site, or 404. */
export async function findDeploy(db: HttpDb, siteId: string, deployId: string): Promise<string> {
  if (!isUuid(deployId)) throw new ApiError('NOT_FOUND', 'deploy not found');
  const [target] = await db
    .select({ id: deploys.id })
    .from(deploys)
    .where(and(eq(deploys.id, deployId.toLowerCase()), eq(deploys.siteId, siteId)));
  if (!target) throw new ApiError('NOT_FOUND', 'deploy not found');
  return target.id;
}
