/**
 * The reads behind the connection routes, each one SQL statement: a site's whole context
 * (caller's role, site, connections, the project's services) comes back in a single round trip.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx, ReadDb } from '../../../db/client';
import type { Kind } from '../../domain/levels';
import type { Role } from '../../domain/roles';
import type { Engine } from '../../domain/variables';
import { isUuid } from '../../lib/ids';
import { type ConnectionInfo, type ResourceInfo, resourceFamily } from './model';

/** Anything one-shot SQL can run on: a pool, a transaction, or the HTTP driver (one round trip each). */
export type SqlRunner = DbOrTx | ReadDb;

/** Runs one statement and returns its rows. */
export async function rowsOf<T>(db: SqlRunner, query: SQL): Promise<T[]> {
  // Both drivers answer `{rows}`; their drizzle types differ only in the result wrapper.
  const result = await (db as DbOrTx).execute(query);
  return result.rows as T[];
}

/** The services of the project whose id `projectId` evaluates to (deleted ones excluded). */
function resourcesOf(projectId: SQL): SQL {
  return sql`
    select 'database'::text as kind, d.id, d.name, d.engine, true as available, d.created_at
      from databases d where d.project_id = ${projectId} and d.deleted_at is null
    union all
    select 'bucket', b.id, b.name, null, true, b.created_at
      from buckets b where b.project_id = ${projectId} and b.deleted_at is null
    union all
    select 'auth_app', a.id, a.app_id, null, a.enabled, a.created_at
      from auth_apps a where a.project_id = ${projectId}`;
}

/** Connections (joined `c`, sites `st`, resources `r`) as JSON-ready columns. */
const CONNECTION_COLUMNS = sql.raw(`
  c.id, c.project_id, c.site_id, st.slug as site_slug, c.kind, c.resource_id,
  r.name as resource_name, r.engine, c.level, c.credential_mode, c.credential_name, c.created_at`);

type ConnectionJson = {
  id: string;
  project_id: string;
  site_id: string;
  site_slug: string;
  kind: Kind;
  resource_id: string;
  resource_name: string;
  engine: Engine | null;
  level: string;
  credential_mode: ConnectionInfo['credentialMode'];
  credential_name: string | null;
  created_at: string | Date;
};

type ResourceJson = {
  kind: Kind;
  id: string;
  name: string;
  engine: Engine | null;
  available: boolean;
  created_at: string | Date;
};

const toConnection = (r: ConnectionJson): ConnectionInfo => ({
  id: r.id,
  projectId: r.project_id,
  siteId: r.site_id,
  siteSlug: r.site_slug,
  kind: r.kind,
  resourceId: r.resource_id,
  resourceName: r.resource_name,
  family: resourceFamily(r.kind, r.engine),
  level: r.level,
  credentialMode: r.credential_mode,
  credentialName: r.credential_name,
  createdAt: new Date(r.created_at),
});

const toResource = (r: ResourceJson): ResourceInfo => ({
  kind: r.kind,
  id: r.id,
  name: r.name,
  engine: r.engine,
  family: resourceFamily(r.kind, r.engine),
  available: r.available,
  createdAt: new Date(r.created_at),
});

/** Everything a site route needs, as read in one statement. */
export interface SiteSnapshot {
  project: { id: string; slug: string; role: Role } | null;
  site: { id: string; slug: string } | null;
  connections: ConnectionInfo[];
  resources: ResourceInfo[];
}

/**
 * Reads, in one round trip, the caller's membership of project `idOrSlug`, site `siteId` of it,
 * the site's connections and the project's services.
 */
export async function readSiteSnapshot(
  db: SqlRunner,
  accountId: string,
  idOrSlug: string,
  siteId: string,
): Promise<SiteSnapshot> {
  const projectCond = isUuid(idOrSlug)
    ? sql`pr.id = ${idOrSlug.toLowerCase()}::uuid`
    : sql`pr.slug = ${idOrSlug}`;
  const site = isUuid(siteId) ? siteId.toLowerCase() : null;
  const [row] = await rowsOf<{
    project: SiteSnapshot['project'];
    site: SiteSnapshot['site'];
    connections: ConnectionJson[];
    resources: ResourceJson[];
  }>(
    db,
    sql`
    with p as (
      select pr.id, pr.slug, m.role from projects pr
      join project_members m on m.project_id = pr.id and m.account_id = ${accountId}::uuid
      where ${projectCond} limit 1
    ),
    st as (select s.id, s.slug from sites s join p on s.project_id = p.id where s.id = ${site}::uuid),
    r as (${resourcesOf(sql`(select id from p)`)}),
    cn as (
      select ${CONNECTION_COLUMNS} from connections c
      join st on st.id = c.site_id
      join r on r.kind = c.kind and r.id = c.resource_id
    )
    select
      (select row_to_json(p) from p) as project,
      (select row_to_json(st) from st) as site,
      (select coalesce(json_agg(cn), '[]'::json) from cn) as connections,
      (select coalesce(json_agg(r), '[]'::json) from r) as resources`,
  );
  return {
    project: row?.project ?? null,
    site: row?.site ?? null,
    connections: (row?.connections ?? []).map(toConnection),
    resources: (row?.resources ?? []).map(toResource),
  };
}

/** Filters of the project-wide connection listing. */
export interface ConnectionFilter {
  siteId?: string;
  kind?: Kind;
  resourceId?: string;
}

/**
 * Every connection of each site of the project that has a connection matching `filter`
 * (whole sites, since a connection's env_names depend on its siblings).
 */
export async function readProjectConnections(
  db: SqlRunner,
  projectId: string,
  filter: ConnectionFilter = {},
): Promise<ConnectionInfo[]> {
  const match: SQL[] = [sql`m.project_id = ${projectId}::uuid`];
  if (filter.siteId) match.push(sql`m.site_id = ${filter.siteId}::uuid`);
  if (filter.kind) match.push(sql`m.kind = ${filter.kind}`);
  if (filter.resourceId) match.push(sql`m.resource_id = ${filter.resourceId}::uuid`);
  const rows = await rowsOf<ConnectionJson>(
    db,
    sql`
    with r as (${resourcesOf(sql`${projectId}::uuid`)})
    select ${CONNECTION_COLUMNS} from connections c
    join sites st on st.id = c.site_id
    join r on r.kind = c.kind and r.id = c.resource_id
    where c.site_id in (select m.site_id from connections m where ${sql.join(match, sql` and `)})`,
  );
  return rows.map(toConnection);
}

/** The project's services (deleted ones excluded). */
export async function readProjectResources(db: SqlRunner, projectId: string): Promise<ResourceInfo[]> {
  return (await rowsOf<ResourceJson>(db, resourcesOf(sql`${projectId}::uuid`))).map(toResource);
}
