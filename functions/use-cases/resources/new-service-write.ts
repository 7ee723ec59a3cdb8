/**
 * A new database, bucket or auth app with its initial connection (a new service in a project
 * with exactly one site is connected to it at the default level, a row
 * test/integration/connections-transitions.test.ts pins) in two metadata round trips: the
 * project's only site, its state and its connections are read with the caller ({@link initialSiteQueries}); a database or
 * bucket and the connection's own credential are made outside; then the service's row, the
 * connection, its managed key and its live patch go in one guarded batch ({@link writeNewService}).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type BatchQuery, type HttpDb, type Queryable, runBatch } from '../../../db/client';
import { sites } from '../../../db/schema';
import { type Kind, levelOrDefault } from '../../domain/levels';
import { type CredentialKindName, credentialsOf, hasCredential, kindOf } from '../../kinds/registry';
import type { ApiError } from '../../lib/errors';
import type { RequestContext } from '../../request-context';
import { activityQuery, type DetailValue } from '../activity';
import { afterCommit } from '../connections/apply';
import { writePlan } from '../connections/locked-write';
import { type ConnectionInfo, resourceOf } from '../connections/model';
import { emptyPlan } from '../connections/plan';
import { type Prepared, prepare } from '../connections/prepare';
import { decodeProjectConnections, projectConnectionsStatement } from '../connections/queries';
import {
  type SiteStates,
  siteStatesFrom,
  siteStatesQuery,
  writeGuardedWith,
} from '../connections/versioned-write';
import { ConcurrentChange, type Written } from '../connections/write';
import type { CredentialTarget } from '../credentials/connection-credential';
import { guard, guardFailure, uniqueViolation } from '../store/guarded-write';

/** What a new service's write read of the project's only site (none when it has not exactly one). */
export interface InitialSite {
  site: { id: string; slug: string } | null;
  states: SiteStates;
  before: ConnectionInfo[];
}

/**
 * The reads of the initial connection, not yet sent (with the caller's lookup): the state of the
 * project's only site (first, see siteStatesQuery), the site, and its connections; nothing for a
 * project with no site or several. `projectId` is SQL for the project's id. Decode with
 * {@link initialSiteFrom}.
 */
export function initialSiteQueries(db: HttpDb, projectId: SQL): BatchQuery[] {
  const onlySite = sql`(select p.id from projects p where p.id = ${projectId}
    and (select count(*) from sites x where x.project_id = p.id) = 1)`;
  return [
    siteStatesQuery(db, sql`s.project_id = ${onlySite}`),
    db.select({ id: sites.id, slug: sites.slug }).from(sites).where(sql`${sites.projectId} = ${onlySite}`),
    db.execute(projectConnectionsStatement(onlySite)),
  ];
}

/**
 * The reads a new service's creation makes with its caller, not yet sent: the project's live
 * services of its kind (for the name checks), then its only site's ({@link initialSiteQueries}).
 * Decode with {@link creationReadFrom}.
 */
export function serviceCreationQueries(db: HttpDb, kind: CredentialKindName, projectId: SQL): BatchQuery[] {
  return [credentialsOf(kind).listQuery(db, projectId), ...initialSiteQueries(db, projectId)];
}

/** The answers of {@link initialSiteQueries}. */
export function initialSiteFrom(answers: readonly unknown[]): InitialSite {
  const [states, siteRows, connections] = answers;
  const [site] = siteRows as Array<{ id: string; slug: string }>;
  return {
    site: site ?? null,
    states: siteStatesFrom(states),
    before: site ? decodeProjectConnections(connections as { rows: unknown[] }) : [],
  };
}

/** The existing services and the only site, from the answers of a creation's read. */
export function creationReadFrom<T>(answers: readonly unknown[]): { existing: T[]; initial: InitialSite } {
  const [existing, ...initial] = answers;
  return { existing: existing as T[], initial: initialSiteFrom(initial) };
}

/** The new service's row as one insert, on the batch's handle or an interactive transaction's. */
export type RowInsert = (db: Queryable) => BatchQuery;

/**
 * A new service to write: a database or bucket (what its credential work takes), or a service of
 * a kind whose connections hold no credential (an auth app, whose `name` is its app_id; a plugin's).
 */
export type NewService =
  | CredentialTarget
  | { kind: Kind; resource: { id: string; projectId: string; name: string } };

/** The 409 a unique violation of `constraint` means for `service`, or undefined for another. */
const nameTaken = (service: NewService, constraint: string | undefined): ApiError | undefined =>
  kindOf(service.kind).nameTaken(constraint, service.resource.name);

/**
 * Writes a new service (`service`, its row not yet stored; a database or bucket made outside):
 * its initial connection's own credential is made first, then the row and the connection go in
 * one guarded batch. When the site's connections changed since they were read, the write runs
 * again in an interactive transaction under the site's lock, re-reading them there (a plan that
 * only adds this new service cannot be made stale). A name taken meanwhile is 409. On any
 * failure the credential is dropped again; the caller undoes the service itself.
 */
export async function writeNewService(
  ctx: RequestContext,
  service: NewService,
  initial: InitialSite,
  insert: RowInsert,
  details: Record<string, DetailValue> = {},
  /** A guard checked after the row's insert, in the same batch (a cap on the project's services). */
  limit?: SQL,
): Promise<void> {
  const r = service.resource;
  // The service's own event goes in with its row; its initial connection records its own.
  const event = {
    action: `${service.kind}.create`,
    target: { type: service.kind, id: r.id, name: r.name },
    projectId: r.projectId,
    details,
  };
  for (let attempt = 1; ; attempt++) {
    const rows = (db: Queryable): BatchQuery[] => [
      insert(db),
      ...(limit ? [db.execute(limit)] : []),
      ...(ctx.activity ? [activityQuery(db, ctx.activity, event)] : []),
      // After the row (whose insert may wait on another): the only site decided from the first
      // read must still be the project's only site (or none still); a site made or deleted
      // meanwhile makes the decision again.
      db.execute(sameOnlySiteGuard(r.projectId, initial.site?.id ?? null)),
    ];
    const prepared = await prepare(ctx, initialPlan(service, initial), knownTarget(service));
    let written: Written;
    try {
      written = await writeOnce(ctx, prepared, initial.states, rows);
    } catch (err) {
      await prepared.undo();
      if (guardFailure(err)?.message === SITES_CHANGED && attempt < DECISIONS) {
        initial = await readInitialSite(ctx, r.projectId);
        continue;
      }
      throw nameTaken(service, uniqueViolation(err)?.constraint) ?? guardFailure(err) ?? err;
    }
    await afterCommit(ctx, written);
    return;
  }
}

/** How many times a creation decides its initial connection before it answers 409. */
const DECISIONS = 4;

const SITES_CHANGED = "the project's sites changed while the service was being created; retry";

/** Raises unless the project's only site is `siteId` (null: the project has no site or several). */
function sameOnlySiteGuard(projectId: string, siteId: string | null) {
  return guard(
    sql`coalesce((select case when count(*) = 1 then min(id::text) end from sites
                   where project_id = ${projectId}::uuid), '') = ${siteId ?? ''}`,
    { code: 'CONFLICT', message: SITES_CHANGED },
  );
}

/** The project's only site read again, after a site was made or deleted beside a creation. */
async function readInitialSite(ctx: RequestContext, projectId: string): Promise<InitialSite> {
  return initialSiteFrom(await runBatch(ctx.http, initialSiteQueries(ctx.http, sql`${projectId}::uuid`)));
}

/** The plan of a new service's initial connection: to the only site, at the default level. */
function initialPlan(service: NewService, initial: InitialSite) {
  const r = service.resource;
  const plan = emptyPlan(r.projectId, initial.before);
  if (initial.site) {
    const engine = 'engine' in service.resource ? service.resource.engine : null;
    const resource = resourceOf(service.kind, r.id, r.name, engine);
    plan.adds.push({
      siteId: initial.site.id,
      siteSlug: initial.site.slug,
      resource,
      grant: levelOrDefault(resource),
    });
  }
  return plan;
}

/** The new service as a known credential target (its row is not stored yet). */
const knownTarget = (service: NewService): Map<string, CredentialTarget> =>
  hasCredential(service.kind) ? new Map([[service.resource.id, service as CredentialTarget]]) : new Map();

/** The guarded batch, or (its site changed meanwhile) the same write under the site's lock. */
async function writeOnce(
  ctx: RequestContext,
  prepared: Prepared,
  states: SiteStates,
  rows: (db: Queryable) => BatchQuery[],
): Promise<Written> {
  try {
    const { written } = await writeGuardedWith(ctx.http, ctx.config, prepared, states, {
      before: rows(ctx.http),
    });
    return written;
  } catch (err) {
    if (!(err instanceof ConcurrentChange)) throw err;
  }
  prepared.plan.rereadUnderLock = true;
  return ctx.db.transaction(async (tx) => {
    for (const row of rows(tx)) await row;
    return writePlan(tx, ctx.config, prepared);
  });
}
