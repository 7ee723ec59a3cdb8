/** The read of a site's deploys, sent with the caller's lookup (routes/shared.ts readWithCaller): one round trip. */
import { sql } from 'drizzle-orm';
import type { HttpDb } from '../../db/client';
import { siteRef } from '../domain/names';
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
