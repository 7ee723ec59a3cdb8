/**
 * GET /databases/:id/sites and /storage/:id/sites in one round trip: the path names a
 * service, not a project, so the caller's lookup cannot bring the membership; these two
 * statements, sent with it, bring the live service with its project and the caller's role
 * there, and the service's connections across the project's sites. PUT sends the same service
 * read with everything its replace plans from.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../../db/client';
import type { Role } from '../../domain/roles';
import { type CredentialKindName, kindOf } from '../../kinds/registry';
import { isUuid } from '../../lib/ids';
import type { Membership } from '../caller/api-caller';
import { type ResourceInfo, resourceOf, toConnectionObjects } from './model';
import { decodeProjectConnections, projectConnectionsStatement } from './queries';
import { type ServiceSite, serviceScopeFrom, serviceScopeQueries, toServiceSite } from './service-plans';

type ServiceKind = CredentialKindName;

interface ServiceRow {
  service: [string, string, string, string, string | null];
  project: [string, string, string, string];
  role: Role | null;
}

/**
 * The two queries (not yet sent) reading live service `id` of `kind`, with `accountId`'s role in
 * its project, and its connections; read their answers with {@link decodeServiceSites}.
 */
export function serviceSitesQueries(db: HttpDb, kind: ServiceKind, id: string, accountId: SQL) {
  const uuid = isUuid(id) ? id.toLowerCase() : null;
  const engine = sql.raw(kindOf(kind).hasEngine ? 's.engine' : 'null::text');
  return [
    db.execute<Record<string, unknown>>(sql`
      select json_build_array(s.id, s.project_id, s.name, s.created_at, ${engine}) as service,
             json_build_array(p.id, p.slug, p.name, p.created_at) as project, m.role
        from ${sql.raw(kindOf(kind).table)} s join projects p on p.id = s.project_id
        left join project_members m on m.project_id = s.project_id and m.account_id = ${accountId}
       where ${live(uuid)}`),
    db.execute<Record<string, unknown>>(
      projectConnectionsStatement(liveProjectOf(kind, uuid), uuid ? { kind, resourceId: uuid } : { kind }),
    ),
  ] as const;
}

/** Where `s` is the live service `uuid` (none when null). */
const live = (uuid: string | null) => sql`s.id = ${uuid}::uuid and s.deleted_at is null`;

/** SQL for the project of live service `uuid` of `kind` (null when there is none). */
const liveProjectOf = (kind: ServiceKind, uuid: string | null) =>
  sql`(select s.project_id from ${sql.raw(kindOf(kind).table)} s where ${live(uuid)})`;

/**
 * The one read of PUT /databases|storage/:id/sites, to send with the caller's lookup: the live
 * service with the caller's role in its project (as the GET reads it), then everything the
 * replace plans from (serviceScopeQueries). Decode with {@link decodeServiceWrite}.
 */
export function serviceWriteQueries(db: HttpDb, kind: ServiceKind, id: string, accountId: SQL): BatchQuery[] {
  const uuid = isUuid(id) ? id.toLowerCase() : null;
  const [service] = serviceSitesQueries(db, kind, id, accountId);
  return [service, ...serviceScopeQueries(db, liveProjectOf(kind, uuid), uuid ?? '')];
}

/** The service and the caller's membership (undefined when not live), the scope and the write's read. */
export function decodeServiceWrite(kind: ServiceKind, answers: readonly unknown[]) {
  const [service, ...scopeAnswers] = answers;
  const { scope, read } = serviceScopeFrom(scopeAnswers);
  const found = decodeServiceSites(
    kind,
    service as { rows: unknown[] },
    scopeAnswers[1] as { rows: unknown[] },
  );
  return { found, scope, read };
}

/** The service, the caller's membership in its project and its sites; undefined when it is not live. */
export function decodeServiceSites(
  kind: ServiceKind,
  service: { rows: unknown[] },
  connections: { rows: unknown[] },
): { resource: ResourceInfo; projectId: string; membership: Membership; sites: ServiceSite[] } | undefined {
  const row = service.rows[0] as ServiceRow | undefined;
  if (!row) return undefined;
  const [id, projectId, name, createdAt, engine] = row.service;
  const resource = resourceOf(kind, id, name, engine, new Date(createdAt));
  const [pid, slug, pname, pcreated] = row.project;
  const membership: Membership = {
    ref: projectId,
    project: { id: pid, slug, name: pname, createdAt: new Date(pcreated) },
    role: row.role,
  };
  const sites = toConnectionObjects(
    decodeProjectConnections(connections),
    (c) => c.kind === kind && c.resourceId === id,
  ).map(toServiceSite);
  return { resource, projectId, membership, sites };
}
