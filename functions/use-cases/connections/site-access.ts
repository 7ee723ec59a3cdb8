/**
 * The reads of a site's routes, sent with the caller's lookup in one round trip: the site with
 * its connections and the project's services, and a connection write's state. The caller is
 * admitted by what its route declares (routes/site-reads.ts) before the site's 404.
 */

import { sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../../db/client';
import { siteRef } from '../../domain/names';
import { type Role, roleAtLeast } from '../../domain/roles';
import { ApiError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { projectIdOf } from '../caller/api-caller';
import type { WriteRead } from './apply';
import type { ConnectionInfo, ResourceInfo } from './model';
import { targetQueries, targetsOf } from './plan';
import { decodeSiteSnapshot, type SiteSnapshot, siteSnapshotStatement } from './queries';
import { storedSecretsFrom, storedSecretsQuery } from './rotation-failure';
import { siteStatesFrom, siteStatesQuery } from './versioned-write';

/** A site the caller may use at the needed role, with its connections and the project's services. */
export interface SiteContext {
  project: { id: string; slug: string };
  site: { id: string; slug: string };
  connections: ConnectionInfo[];
  resources: ResourceInfo[];
}

/** Checks a member's role against the route's need. */
export function requireRole(held: Role, needed: Role): void {
  if (!roleAtLeast(held, needed)) {
    throw new ApiError('FORBIDDEN', `this needs the ${needed} role on the project; you have ${held}`);
  }
}

/** The query of a site read sent with its caller's lookup (see {@link siteOfAnswer}). */
export function siteReadQuery(db: HttpDb, idOrSlug: string, siteId: string) {
  return db.execute(siteSnapshotStatement(null, idOrSlug, siteId));
}

/**
 * The site a {@link siteReadQuery} answer holds, with its connections and the project's
 * services, for a caller already admitted to the project; 404 when there is no such site.
 */
export function siteOfAnswer(answer: unknown): SiteContext {
  return siteOfSnapshot(decodeSiteSnapshot((answer as { rows: unknown[] }).rows[0]));
}

function siteOfSnapshot(snap: SiteSnapshot): SiteContext {
  if (!snap.project) throw new ApiError('NOT_FOUND', 'project not found');
  if (!snap.site) throw new ApiError('NOT_FOUND', 'site not found');
  return {
    project: { id: snap.project.id, slug: snap.project.slug },
    site: snap.site,
    connections: snap.connections,
    resources: snap.resources,
  };
}

/**
 * The one read of a write to a site's connections, to send with the caller's lookup: the
 * site's state for the write's guard (first, see siteStatesQuery), the site with its
 * connections and the project's services, the rows of the services `resourceIds` may name
 * (the credential work needs them) and, for a rotate (`rotating`), the stored secret of its
 * connection. Decode with {@link siteWriteOf}.
 */
export function siteWriteQueries(
  db: HttpDb,
  idOrSlug: string,
  siteId: string,
  resourceIds: readonly string[],
  rotating?: string,
): BatchQuery[] {
  const ref = siteRef(siteId);
  const site =
    ref === null ? sql`false` : 'id' in ref ? sql`s.id = ${ref.id}::uuid` : sql`s.slug = ${ref.slug}`;
  const where = sql`s.project_id = ${projectIdOf(idOrSlug)} and ${site}`;
  const secrets = rotating && isUuid(rotating) ? [storedSecretsQuery(db, where, rotating.toLowerCase())] : [];
  return [
    siteStatesQuery(db, where),
    siteReadQuery(db, idOrSlug, siteId),
    ...secrets,
    ...targetQueries(db, resourceIds),
  ];
}

/** The site and what the write read, from the answers of {@link siteWriteQueries}, for a caller already admitted. */
export function siteWriteOf(
  answers: readonly unknown[],
  rotating?: string,
): { ctx: SiteContext; read: WriteRead } {
  const [states, snapshot, ...rest] = answers;
  const ctx = siteOfAnswer(snapshot);
  const withSecrets = rotating !== undefined && isUuid(rotating);
  const targets = targetsOf(withSecrets ? rest.slice(1) : rest);
  const read: WriteRead = { states: siteStatesFrom(states), targets };
  if (withSecrets) read.stored = storedSecretsFrom(rest[0]);
  return { ctx, read };
}
