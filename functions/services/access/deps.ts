/** What the service-credential and principal services need, built once per request from the route's pieces. */
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Db, HttpDb, Queryable } from '../../../db/client';
import type { BucketRow, DatabaseRow } from '../../../db/rows';
import { buckets, databases } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { PrincipalKind } from '../../domain/principal-rules';
import type { Config } from '../../env';
import { ApiError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import type { ProvisioningMessage } from '../../queues/messages';
import type { Services } from '../container';
import type { CredentialTarget } from '../credentials/connection-credential';

/** The request's database, configuration, outside systems and provisioning queue. */
export interface AccessDeps {
  db: Db;
  /** One-shot statements and batches over HTTP (no connection set-up). */
  http: HttpDb;
  config: Config;
  adapters: Adapters;
  queue: Queue<ProvisioningMessage>;
}

/** Builds {@link AccessDeps} from the request's database handles and the composition root's services. */
export function accessDeps(db: Db, http: HttpDb, services: Services): AccessDeps {
  return { db, http, config: services.config, adapters: services.adapters, queue: services.queue };
}

/** The live database `id` of the project `projectId` names, as a query not yet sent (for a batch). */
export function liveDatabaseQuery(db: Queryable, projectId: SQL, id: string) {
  return db
    .select()
    .from(databases)
    .where(
      and(
        isUuid(id) ? eq(databases.id, id.toLowerCase()) : sql`false`,
        eq(databases.projectId, projectId),
        isNull(databases.deletedAt),
      ),
    );
}

/** The live bucket `id` of the project `projectId` names, as a query not yet sent (for a batch). */
export function liveBucketQuery(db: Queryable, projectId: SQL, id: string) {
  return db
    .select()
    .from(buckets)
    .where(
      and(
        isUuid(id) ? eq(buckets.id, id.toLowerCase()) : sql`false`,
        eq(buckets.projectId, projectId),
        isNull(buckets.deletedAt),
      ),
    );
}

/** The one row a {@link liveDatabaseQuery} or {@link liveBucketQuery} found; 404 when none. */
export function found<T>(rows: T[], what: 'database' | 'bucket'): T {
  const [row] = rows;
  if (!row) throw new ApiError('NOT_FOUND', `${what} not found`);
  return row;
}

/** Live database `id` of the project; 404 otherwise (ids that are not uuids name nothing). */
export async function liveDatabase(db: Queryable, projectId: string, id: string): Promise<DatabaseRow> {
  const [row] = isUuid(id)
    ? await db
        .select()
        .from(databases)
        .where(
          and(
            eq(databases.id, id.toLowerCase()),
            eq(databases.projectId, projectId),
            isNull(databases.deletedAt),
          ),
        )
    : [];
  if (!row) throw new ApiError('NOT_FOUND', 'database not found');
  return row;
}

/** Live bucket `id` of the project; 404 otherwise. */
export async function liveBucket(db: Queryable, projectId: string, id: string): Promise<BucketRow> {
  const [row] = isUuid(id)
    ? await db
        .select()
        .from(buckets)
        .where(
          and(eq(buckets.id, id.toLowerCase()), eq(buckets.projectId, projectId), isNull(buckets.deletedAt)),
        )
    : [];
  if (!row) throw new ApiError('NOT_FOUND', 'bucket not found');
  return row;
}

/** The live service a principal route names (`kind`, `id` of the project `projectId` names), as a query not yet sent. */
export function liveTargetQuery(db: Queryable, projectId: SQL, kind: PrincipalKind, id: string) {
  return kind === 'database' ? liveDatabaseQuery(db, projectId, id) : liveBucketQuery(db, projectId, id);
}

/** The credential target from the answer of {@link liveTargetQuery}; 404 when none. */
export function targetOf(kind: PrincipalKind, rows: unknown): CredentialTarget {
  return kind === 'database'
    ? { kind, resource: found(rows as DatabaseRow[], 'database') }
    : { kind, resource: found(rows as BucketRow[], 'bucket') };
}
