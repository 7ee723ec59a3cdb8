/**
 * The reads of named principals (principals.ts), each a query not yet sent (it goes with the
 * caller's lookup) and its decoder: a service's live names, one principal, and the listing.
 */
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { HttpDb, Queryable } from '../../../db/client';
import { principals } from '../../../db/schema';
import type { PrincipalKind } from '../../domain/principal-rules';
import { kindOf } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { livePrincipalsJson, type PrincipalSummary, principalSummary } from './access-listing';

/** A principal's row. */
export type PrincipalRow = typeof principals.$inferSelect;

/**
 * The service's live principals' names, as a query not yet sent (for the create's reads: a name
 * in use is 409, and so is a service at its cap).
 */
export function liveNamesQuery(db: Queryable, kind: PrincipalKind, serviceId: string) {
  return db
    .select({ name: principals.name })
    .from(principals)
    .where(
      and(
        eq(principals.kind, kind),
        isUuid(serviceId) ? eq(principals.resourceId, serviceId.toLowerCase()) : sql`false`,
        isNull(principals.revokedAt),
      ),
    );
}

/** Principal `principalId` of the service, revoked ones included, as a query not yet sent. */
export function principalQuery(db: Queryable, kind: PrincipalKind, serviceId: string, principalId: string) {
  return db
    .select()
    .from(principals)
    .where(
      and(
        isUuid(principalId) && isUuid(serviceId)
          ? and(
              eq(principals.id, principalId.toLowerCase()),
              eq(principals.resourceId, serviceId.toLowerCase()),
            )
          : sql`false`,
        eq(principals.kind, kind),
      ),
    );
}

/** The principal a {@link principalQuery} found; 404 if it never existed. */
export function principalOf(rows: PrincipalRow[]): PrincipalRow {
  const [row] = rows;
  if (!row) throw new ApiError('NOT_FOUND', 'principal not found');
  return row;
}

/**
 * The live principals of service `serviceId` of the project `projectId` names, never a secret,
 * as one statement not yet sent (it goes with the caller's lookup); read by {@link principalsOf}.
 */
export function principalsListingQuery(db: HttpDb, projectId: SQL, kind: PrincipalKind, serviceId: string) {
  const id = isUuid(serviceId) ? serviceId.toLowerCase() : null;
  return db.execute<{ found: boolean; list: Parameters<typeof principalSummary>[1][] | null }>(
    sql`select exists (select 1 from ${sql.raw(kindOf(kind).table)} s where s.id = ${id}::uuid and s.project_id = ${projectId}
                         and s.deleted_at is null) as found,
               ${livePrincipalsJson(kind, sql`${id}::uuid`)} as list`,
  );
}

/** The listing from the answer of {@link principalsListingQuery}; 404 when the service is not the project's. */
export function principalsOf(
  kind: PrincipalKind,
  answer: { rows: Array<{ found: boolean; list: Parameters<typeof principalSummary>[1][] | null }> },
): PrincipalSummary[] {
  const [row] = answer.rows;
  if (!row?.found) throw new ApiError('NOT_FOUND', `${kind} not found`);
  const now = Date.now();
  return (row.list ?? []).map((t) => principalSummary(kind, t, now));
}
