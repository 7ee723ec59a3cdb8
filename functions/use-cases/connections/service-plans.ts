/**
 * The older per-service view: one database's or bucket's connections across the project's
 * sites (GET and PUT /databases/:id/sites, /storage/:id/sites), over the same connections.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../../db/client';
import { sites } from '../../../db/schema';
import { type DesiredLevel, levelOrDefault } from '../../domain/levels';
import type { CredentialKindName } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import type { WriteRead } from './apply';
import { type ConnectionInfo, type ConnectionObject, type ResourceInfo, toConnectionObjects } from './model';
import { affectedSites, afterOf, emptyPlan, type Plan, targetQueries, targetsOf } from './plan';
import { decodeProjectConnections, projectConnectionsStatement } from './queries';
import { siteStatesFrom, siteStatesQuery } from './versioned-write';

/** What the per-service routes show of a connection. */
export interface ServiceSite {
  site_id: string;
  site_slug: string;
  level: string;
  env_names: string[];
  created_at: string;
}

/** One entry of the desired set: a site and, optionally, a level of the service's kind. */
export type DesiredSite = { site_id: string } & DesiredLevel<CredentialKindName>;

export const toServiceSite = (o: ConnectionObject): ServiceSite => ({
  site_id: o.site_id,
  site_slug: o.site_slug,
  level: o.level,
  env_names: o.env_names,
  created_at: o.created_at,
});

/**
 * Everything a per-service replace reads, as queries to send in one batch (with the caller's
 * lookup when it is pending): the states of the project's sites for the write's guard (first,
 * see siteStatesQuery), every connection of the project, its sites, and the service's own row
 * for credential work. `projectId` is SQL for the project's id. Decode with {@link serviceScopeFrom}.
 */
export function serviceScopeQueries(db: HttpDb, projectId: SQL, resourceId: string): BatchQuery[] {
  return [
    siteStatesQuery(db, sql`s.project_id = ${projectId}`),
    db.execute(projectConnectionsStatement(projectId)),
    db.select({ id: sites.id, slug: sites.slug }).from(sites).where(sql`${sites.projectId} = ${projectId}`),
    ...targetQueries(db, [resourceId]),
  ];
}

/** The scope and the write's read from the answers of {@link serviceScopeQueries}. */
export function serviceScopeFrom(answers: readonly unknown[]): {
  scope: { connections: ConnectionInfo[]; sites: Array<{ id: string; slug: string }> };
  read: WriteRead;
} {
  const [states, connections, siteRows, ...targets] = answers;
  return {
    scope: {
      connections: decodeProjectConnections(connections as { rows: unknown[] }),
      sites: siteRows as Array<{ id: string; slug: string }>,
    },
    read: { states: siteStatesFrom(states), targets: targetsOf(targets) },
  };
}

/** PUT: the full set of sites connected to one service, validated whole. */
export function planServiceSites(
  projectId: string,
  resource: ResourceInfo,
  scope: { connections: ConnectionInfo[]; sites: Array<{ id: string; slug: string }> },
  desired: readonly DesiredSite[],
): Plan {
  const plan = emptyPlan(projectId, scope.connections);
  const mine = new Map(
    scope.connections
      .filter((c) => c.kind === resource.kind && c.resourceId === resource.id)
      .map((c) => [c.siteId, c]),
  );
  const siteById = new Map(scope.sites.map((s) => [s.id, s]));
  const seen = new Set<string>();
  desired.forEach((want, i) => {
    const field = `sites[${i}]`;
    const id = want.site_id.toLowerCase();
    const site = isUuid(id) ? siteById.get(id) : undefined;
    if (!site)
      throw new ApiError(
        'BAD_REQUEST',
        `${field}.site_id: no site ${want.site_id} in this project`,
        `${field}.site_id`,
      );
    if (seen.has(id)) throw new ApiError('BAD_REQUEST', `${field}: site ${id} is listed twice`, field);
    seen.add(id);
    const grant = levelOrDefault(want);
    const existing = mine.get(id);
    if (!existing) plan.adds.push({ siteId: id, siteSlug: site.slug, resource, grant });
    else if (existing.level !== grant.level) plan.levels.push({ conn: existing, grant });
  });
  plan.removes = [...mine.values()].filter((c) => !seen.has(c.siteId));
  return plan;
}

/** The service's sites after a plan was written. */
export function serviceSitesAfter(plan: Plan, resource: ResourceInfo, inserted: readonly ConnectionInfo[]) {
  const touched = new Set(affectedSites(plan));
  const untouched = plan.before.filter((c) => !touched.has(c.siteId));
  const after = [...untouched, ...[...touched].flatMap((s) => afterOf(plan, s, inserted))];
  return toConnectionObjects(after, (c) => c.kind === resource.kind && c.resourceId === resource.id).map(
    toServiceSite,
  );
}
