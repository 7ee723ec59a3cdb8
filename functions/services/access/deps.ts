/** What the service-credential and principal services need, built once per request from the route's pieces. */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db, Queryable } from '../../../db/client';
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
  /** One-shot reads (no connection set-up): what GET routes use. */
  reads: Queryable;
  config: Config;
  adapters: Adapters;
  queue: Queue<ProvisioningMessage>;
}

/** Builds {@link AccessDeps} from the request's database handles and the composition root's services. */
export function accessDeps(db: Db, reads: Queryable, services: Services): AccessDeps {
  return { db, reads, config: services.config, adapters: services.adapters, queue: services.queue };
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

/** The live service a principal route names, as a credential target. */
export async function liveTarget(
  db: Queryable,
  projectId: string,
  kind: PrincipalKind,
  id: string,
): Promise<CredentialTarget> {
  return kind === 'database'
    ? { kind, resource: await liveDatabase(db, projectId, id) }
    : { kind, resource: await liveBucket(db, projectId, id) };
}
