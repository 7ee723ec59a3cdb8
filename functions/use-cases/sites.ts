/** Sites of a project: created empty, listed, found, deleted with their connections. */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type HttpDb, runBatch } from '../../db/client';
import type { SiteRow } from '../../db/rows';
import { sites } from '../../db/schema';
import { type SiteRef, siteRef } from '../domain/names';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { activityQuery } from './activity';

export type { SiteRow };

/** Creates a site with no connections; 409 when the project has one by that slug. */
export async function createSite(
  ctx: RequestContext,
  { projectId, slug }: { projectId: string; slug: string },
): Promise<SiteRow> {
  const db = ctx.http;
  const id = newId();
  const event = { action: 'site.create', target: { type: 'site', id, name: slug }, projectId, siteId: id };
  const [inserted] = await runBatch(db, [
    db.insert(sites).values({ id, projectId, slug }).onConflictDoNothing().returning(),
    activityQuery(db, ctx.activity, event, sql`exists (select 1 from sites where id = ${id}::uuid)`),
  ]);
  const [row] = inserted as SiteRow[];
  if (!row) throw new ApiError('CONFLICT', `a site with slug ${slug} already exists in this project`);
  return row;
}

/** Where a site is `ref` (its id or its slug) of the project whose id `projectId` gives. */
export function siteIs(projectId: string | SQL, ref: SiteRef) {
  const match = ref === null ? sql`false` : 'id' in ref ? eq(sites.id, ref.id) : eq(sites.slug, ref.slug);
  return and(match, eq(sites.projectId, projectId));
}

/**
 * Site `siteId` (its id or its slug) of the project whose id `projectId` gives, as rows (none
 * when there is no such site): a query not yet sent, so a route can batch it with the caller's lookup.
 */
export function siteOfProject(db: HttpDb, projectId: string | SQL, siteId: string) {
  return db
    .select()
    .from(sites)
    .where(siteIs(projectId, siteRef(siteId)));
}
