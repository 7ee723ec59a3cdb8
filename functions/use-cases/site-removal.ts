/**
 * What deleting a site takes with it (two metadata round trips): its connections, the
 * removal of their own credentials and, by cascade, its managed key and deploys. The caller,
 * the site and the services whose credentials its connections hold are read in one trip
 * ({@link siteRemovalQueries}); the site and its connections go in one batch
 * ({@link removeSite}); the credentials are dropped after it, as on a disconnect.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../db/client';
import { connections, sites } from '../../db/schema';
import { siteRef } from '../domain/names';
import { CREDENTIAL_KIND_NAMES, type CredentialKindName, credentialsOf } from '../kinds/registry';
import type { RequestContext } from '../request-context';
import { activityQuery } from './activity';
import { afterCommit } from './connections/apply';
import { targetsOf } from './connections/plan';
import type { CleanupRef } from './connections/write';
import type { CredentialTarget } from './credentials/connection-credential';
import { siteIs, siteOfProject } from './sites';
import { guardRows, runGuarded } from './store/guarded-write';

/** Where a row of `sites` is site `siteId` (its id or its slug) of the project `projectId` gives. */
const siteWhere = (projectId: string | SQL, siteId: string) => siteIs(projectId, siteRef(siteId));

/**
 * The reads of a site's removal, not yet sent (with the caller's lookup): site `siteId` (its id
 * or its slug) of the project `projectId` gives, and the databases and buckets whose own
 * credentials its connections hold, so they are dropped without reading them again. Decode
 * with {@link siteRemovalFrom}.
 */
export function siteRemovalQueries(db: HttpDb, projectId: SQL, siteId: string): BatchQuery[] {
  const held = (kind: CredentialKindName) =>
    sql`select ${connections.resourceId} from ${connections} join ${sites} on ${sites.id} = ${connections.siteId}
         where ${siteWhere(projectId, siteId)} and ${connections.kind} = ${kind}
           and ${connections.credentialName} is not null`;
  return [
    siteOfProject(db, projectId, siteId),
    ...CREDENTIAL_KIND_NAMES.map((kind) => credentialsOf(kind).rowsQuery(db, held(kind))),
  ];
}

/** What {@link siteRemovalQueries} read: whether the site exists and the services its credentials are of. */
export function siteRemovalFrom(answers: readonly unknown[]): {
  found: boolean;
  targets: Map<string, CredentialTarget>;
} {
  const [site, ...targets] = answers;
  return { found: (site as unknown[]).length > 0, targets: targetsOf(targets) };
}

/**
 * Deletes site `siteId` (its id or its slug) of the project in one batch: its connections, a
 * cleanup row for each own credential they held, then the site (404, nothing changed, when it
 * is gone). The credentials are then dropped at once (`targets`: the services read with the
 * caller), the queue retrying what fails.
 */
export async function removeSite(
  ctx: RequestContext,
  projectId: string,
  siteId: string,
  targets: ReadonlyMap<string, CredentialTarget>,
): Promise<void> {
  const db = ctx.http;
  const where = siteWhere(projectId, siteId);
  const site = (column: SQL) => sql`select ${column} from ${sites} where ${where}`;
  const event = {
    action: 'site.delete',
    target: { type: 'site', id: site(sql`${sites.id}`), name: site(sql`${sites.slug}`) },
    projectId,
    siteId: site(sql`${sites.id}`),
  };
  // First, while the site is there to name (a site already gone records nothing, then is 404).
  const recorded = ctx.activity
    ? [activityQuery(db, ctx.activity, event, sql`exists (${site(sql`1`)})`)]
    : [];
  const answers = await runGuarded(db, [
    ...recorded,
    db.execute<{ id: string; kind: CredentialKindName; resource_id: string; credential_name: string }>(sql`
      with removed as (
        delete from connections where site_id = (select ${sites.id} from ${sites} where ${where} for update)
        returning id, kind, resource_id, credential_name
      ),
      -- A rotation's old credential, still valid, goes with the connection's own.
      retiring as (
        update connection_rotations set retired_at = now(), old_sessions = 0
         where connection_id in (select id from removed) and retired_at is null
        returning kind, resource_id, old_credential_name as credential_name
      )
      insert into credential_cleanups (id, kind, resource_id, credential_name)
      select gen_random_uuid(), kind, resource_id, credential_name
        from (select kind, resource_id, credential_name from removed union all select * from retiring) x
       where credential_name is not null and kind <> 'auth_app'
      returning id, kind, resource_id, credential_name`),
    db.execute(
      guardRows(sql`delete from ${sites} where ${where} returning ${sites.id}`, {
        code: 'NOT_FOUND',
        message: 'site not found',
      }),
    ),
  ]);
  const made = answers[recorded.length];
  const cleanups: CleanupRef[] = (
    made as {
      rows: Array<{ id: string; kind: CredentialKindName; resource_id: string; credential_name: string }>;
    }
  ).rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    resourceId: r.resource_id,
    credentialName: r.credential_name,
  }));
  await afterCommit(ctx, { inserted: [], deliveryIds: [], cleanups }, targets);
}
