/**
 * The reads behind the connection routes, each one SQL statement: a site's whole context
 * (caller's role, site, connections, the project's services) comes back in a single round trip.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, type Queryable, rowsOf } from '../../../db/client';
import type { Kind, Level } from '../../domain/levels';
import { SLUG_RE, siteRef } from '../../domain/names';
import type { Role } from '../../domain/roles';
import type { Engine } from '../../domain/variables';
import { liveServiceJoin, projectServices } from '../../kinds/service-sql';
import { isUuid } from '../../lib/ids';
import { type ConnectionInfo, type ResourceInfo, resourceFamily } from './model';

/**
 * Joins a connection `c` to its live service as `svc`; a connection whose service is gone has no
 * `svc.name`, and callers leave it out. Built per statement: a kind may be registered after load.
 */
const serviceJoin = () => liveServiceJoin('c');
/** The old credential of connection `c`'s graceful rotation not yet retired (by its primary key). */
const RETIRING = sql`(select rot.old_credential_name from connection_rotations rot
   where rot.connection_id = c.id and rot.retired_at is null)`;

type ConnectionJson = {
  id: string;
  project_id: string;
  site_id: string;
  site_slug: string;
  kind: Kind;
  resource_id: string;
  resource_name: string;
  engine: Engine | null;
  level: Level;
  credential_mode: ConnectionInfo['credentialMode'];
  credential_name: string | null;
  retiring_name: string | null;
  holds_plain: boolean;
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
  retiringName: r.retiring_name,
  holdsPlain: r.holds_plain,
  createdAt: new Date(r.created_at),
});

/** A service as a compact JSON array: kind, id, name, engine, available, created_at. */
type ResourceTuple = [Kind, string, string, Engine | null, boolean, string];

const toResource = ([kind, id, name, engine, available, createdAt]: ResourceTuple): ResourceInfo => ({
  kind,
  id,
  name,
  engine,
  family: resourceFamily(kind, engine),
  available,
  createdAt: new Date(createdAt),
});

/** A site's connection as a compact JSON array (arrays build and parse faster than objects). */
type ConnectionTuple = [
  id: string,
  kind: Kind,
  resourceId: string,
  name: string,
  engine: Engine | null,
  level: Level,
  mode: ConnectionInfo['credentialMode'],
  credentialName: string | null,
  createdAt: string,
  holdsPlain: boolean,
  retiringName: string | null,
];

/** Everything a site route needs, as read in one statement. */
export interface SiteSnapshot {
  /** The project; `role` is null when it was read without an account (the caller lookup has it). */
  project: { id: string; slug: string; role: Role | null } | null;
  site: { id: string; slug: string } | null;
  connections: ConnectionInfo[];
  resources: ResourceInfo[];
}

/** The row of the site snapshot statement. */
interface SnapshotRow {
  project: [string, string, Role | null] | null;
  site: [string, string] | null;
  connections: ConnectionTuple[] | null;
  resources: ResourceTuple[] | null;
}

/**
 * The statement of a site's snapshot: project `idOrSlug` (with `accountId`'s role
 * there; without an account, the project alone, its role left to the caller lookup sent with
 * it), site `siteId` of it, the site's connections and the project's services.
 */
export function siteSnapshotStatement(accountId: string | null, idOrSlug: string, siteId: string): SQL {
  const projectCond = isUuid(idOrSlug)
    ? sql`pr.id = ${idOrSlug.toLowerCase()}::uuid`
    : SLUG_RE.test(idOrSlug)
      ? sql`pr.slug = ${idOrSlug}`
      : sql`false`;
  const ref = siteRef(siteId);
  const siteCond =
    ref === null ? sql`false` : 'id' in ref ? sql`s.id = ${ref.id}::uuid` : sql`s.slug = ${ref.slug}`;
  const project =
    accountId === null
      ? sql`select pr.id, pr.slug, null::text as role from projects pr where ${projectCond} limit 1`
      : sql`select pr.id, pr.slug, m.role from projects pr
      join project_members m on m.project_id = pr.id and m.account_id = ${accountId}::uuid
      where ${projectCond} limit 1`;
  return sql`
    with p as (${project}),
    st as (select s.id, s.slug from sites s join p on s.project_id = p.id where ${siteCond})
    select
      (select json_build_array(p.id, p.slug, p.role) from p) as project,
      (select json_build_array(st.id, st.slug) from st) as site,
      (select json_agg(json_build_array(c.id, c.kind, c.resource_id, svc.name, svc.engine, c.level,
                                        c.credential_mode, c.credential_name, c.created_at, c.holds_plain,
                                        ${RETIRING}))
         from connections c ${serviceJoin()}
         where c.site_id = (select id from st) and svc.name is not null) as connections,
      (select json_agg(json_build_array(r.kind, r.id, r.name, r.engine, r.available, r.created_at))
         from (${projectServices(sql`(select id from p)`)}) r) as resources`;
}

/** Reads the row of {@link siteSnapshotStatement}. */
export function decodeSiteSnapshot(row: unknown): SiteSnapshot {
  const r = row as SnapshotRow | undefined;
  const project = r?.project ? { id: r.project[0], slug: r.project[1], role: r.project[2] } : null;
  const st = r?.site ? { id: r.site[0], slug: r.site[1] } : null;
  const connections = (r?.connections ?? []).map(
    ([
      id,
      kind,
      resourceId,
      name,
      engine,
      level,
      mode,
      credentialName,
      createdAt,
      holdsPlain,
      retiringName,
    ]): ConnectionInfo => ({
      id,
      projectId: project?.id ?? '',
      siteId: st?.id ?? '',
      siteSlug: st?.slug ?? '',
      kind,
      resourceId,
      resourceName: name,
      family: resourceFamily(kind, engine),
      level,
      credentialMode: mode,
      credentialName,
      retiringName,
      holdsPlain,
      createdAt: new Date(createdAt),
    }),
  );
  return { project, site: st, connections, resources: (r?.resources ?? []).map(toResource) };
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
  db: Queryable,
  projectId: string,
  filter: ConnectionFilter = {},
): Promise<ConnectionInfo[]> {
  return decodeProjectConnections(
    await (db as DbOrTx).execute(projectConnectionsStatement(sql`${projectId}::uuid`, filter)),
  );
}

/** The statement of {@link readProjectConnections}, for the project whose id `projectId` gives. */
export function projectConnectionsStatement(projectId: SQL, filter: ConnectionFilter = {}): SQL {
  const match: SQL[] = [sql`m.project_id = ${projectId}`];
  if (filter.siteId) match.push(sql`m.site_id = ${filter.siteId}::uuid`);
  if (filter.kind) match.push(sql`m.kind = ${filter.kind}`);
  if (filter.resourceId) match.push(sql`m.resource_id = ${filter.resourceId}::uuid`);
  return sql`
    select c.id, c.project_id, c.site_id, st.slug as site_slug, c.kind, c.resource_id,
           svc.name as resource_name, svc.engine, c.level, c.credential_mode, c.credential_name,
           ${RETIRING} as retiring_name, c.holds_plain, c.created_at
    from connections c join sites st on st.id = c.site_id ${serviceJoin()}
    where svc.name is not null
      -- The project's own sites, by their index (a connection's site is its project's).
      and st.project_id = ${projectId}
      and c.site_id in (select m.site_id from connections m where ${sql.join(match, sql` and `)})`;
}

/** Reads the answer of {@link projectConnectionsStatement}. */
export function decodeProjectConnections(answer: { rows: unknown[] }): ConnectionInfo[] {
  return (answer.rows as ConnectionJson[]).map(toConnection);
}

/** The project's services (deleted ones excluded). */
export async function readProjectResources(db: Queryable, projectId: string): Promise<ResourceInfo[]> {
  const rows = await rowsOf<{ r: ResourceTuple }>(
    db,
    sql`select json_build_array(r.kind, r.id, r.name, r.engine, r.available, r.created_at) as r
        from (${projectServices(sql`${projectId}::uuid`)}) r`,
  );
  return rows.map((x) => toResource(x.r));
}
