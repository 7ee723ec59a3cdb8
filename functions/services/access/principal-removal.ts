/**
 * What deleting a service does to its named principals: they are revoked with it (CONTRACT §7).
 * A database's principal roles go with the database; a bucket's principal keys through
 * credential cleanups. Each helper is one statement, so deleting costs no extra round trip.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { type DbOrTx, type Queryable, rowsOf } from '../../../db/client';
import { principals } from '../../../db/schema';
import type { CleanupRef } from '../connections/write';

/** Every login a database's connections and live principals hold, in one statement. */
export async function serviceLoginNames(db: Queryable, resourceId: string): Promise<string[]> {
  const rows = await rowsOf<{ name: string }>(
    db,
    sql`select c.credential_name as name from connections c
         where c.resource_id = ${resourceId}::uuid and c.credential_name is not null
        union
        select x.credential_name from principals x
         where x.kind = 'database' and x.resource_id = ${resourceId}::uuid and x.revoked_at is null`,
  );
  return rows.map((r) => r.name);
}

/** Marks the database deleted and its live principals revoked, in one statement. */
export async function markDatabaseDeleted(tx: DbOrTx, databaseId: string): Promise<void> {
  await tx.execute(sql`
    with revoked as (
      update principals set revoked_at = now()
       where kind = 'database' and resource_id = ${databaseId}::uuid and revoked_at is null
    )
    update databases set deleted_at = now() where id = ${databaseId}::uuid`);
}

/**
 * Revokes the bucket's live principals and queues their keys and the bucket's own key for
 * deletion, in one statement; returns the cleanups.
 */
export async function queueBucketKeyCleanups(
  tx: DbOrTx,
  bucketId: string,
  ownKey: string,
): Promise<CleanupRef[]> {
  const rows = await rowsOf<{ id: string; credential_name: string }>(
    tx,
    sql`
    with revoked as (
      update principals set revoked_at = now()
       where kind = 'bucket' and resource_id = ${bucketId}::uuid and revoked_at is null
       returning credential_name
    )
    insert into credential_cleanups (id, kind, resource_id, credential_name)
    select gen_random_uuid(), 'bucket', ${bucketId}::uuid, k.name
      from (select ${ownKey}::text as name union all select credential_name from revoked) k
    returning id, credential_name`,
  );
  return rows.map((r) => ({
    id: r.id,
    kind: 'bucket' as const,
    resourceId: bucketId,
    credentialName: r.credential_name,
  }));
}

/** Marks one principal revoked unless it is already; true when this call did it. */
export async function revokeExpired(db: DbOrTx, principalId: string): Promise<boolean> {
  const rows = await db
    .update(principals)
    .set({ revokedAt: new Date() })
    .where(and(eq(principals.id, principalId), isNull(principals.revokedAt)))
    .returning({ id: principals.id });
  return rows.length > 0;
}
