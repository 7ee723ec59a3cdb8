/**
 * What deleting a service does to its named principals: they are revoked with it (contract §7).
 * A database's principal roles go with the database; a bucket's principal keys through
 * credential cleanups. Each is one statement, sent in the deletion's own read or write batch.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { DbOrTx, HttpDb } from '../../../db/client';
import { principals } from '../../../db/schema';
import { isUuid } from '../../lib/ids';
import { activityQuery, SYSTEM_SOURCE } from '../activity';
import type { CleanupRef } from '../connections/write';

/**
 * The read of every login a database's connections and live principals hold, not yet sent
 * (a deletion sends it with its caller); an id that is not a uuid names none. Decode with
 * {@link loginNamesFrom}.
 */
export function serviceLoginNamesQuery(db: HttpDb, id: string) {
  const resourceId = isUuid(id) ? id.toLowerCase() : null;
  return db.execute<{ name: string }>(
    sql`select c.credential_name as name from connections c
         where c.resource_id = ${resourceId}::uuid and c.credential_name is not null
        union
        select r.old_credential_name from connection_rotations r
         where r.resource_id = ${resourceId}::uuid and r.retired_at is null and r.old_credential_name is not null
        union
        select x.credential_name from principals x
         where x.kind = 'database' and x.resource_id = ${resourceId}::uuid and x.revoked_at is null`,
  );
}

/** The names a {@link serviceLoginNamesQuery} read. */
export function loginNamesFrom(answer: unknown): string[] {
  return (answer as { rows: Array<{ name: string }> }).rows.map((r) => r.name);
}

/** The statement revoking the database's live principals (sent with its deletion's batch). */
export function revokeDatabasePrincipals(db: HttpDb, databaseId: string) {
  return db.execute(sql`
    update principals set revoked_at = now()
     where kind = 'database' and resource_id = ${databaseId}::uuid and revoked_at is null`);
}

/**
 * The statement revoking the bucket's live principals and queueing their keys and the
 * bucket's own key for deletion (sent with its deletion's batch); read the cleanups from its
 * answer with {@link bucketCleanupsFrom}.
 */
export function queueBucketKeyCleanups(db: HttpDb, bucketId: string, ownKey: string) {
  return db.execute<{ id: string; credential_name: string }>(sql`
    with revoked as (
      update principals set revoked_at = now()
       where kind = 'bucket' and resource_id = ${bucketId}::uuid and revoked_at is null
       returning credential_name
    )
    insert into credential_cleanups (id, kind, resource_id, credential_name)
    select gen_random_uuid(), 'bucket', ${bucketId}::uuid, k.name
      from (select ${ownKey}::text as name union all select credential_name from revoked) k
    returning id, credential_name`);
}

/** The cleanups a {@link queueBucketKeyCleanups} statement recorded. */
export function bucketCleanupsFrom(answer: unknown, bucketId: string): CleanupRef[] {
  const rows = (answer as { rows: Array<{ id: string; credential_name: string }> }).rows;
  return rows.map((r) => ({
    id: r.id,
    kind: 'bucket' as const,
    resourceId: bucketId,
    credentialName: r.credential_name,
  }));
}

/** An expired principal as its removal records it. */
type ExpiredPrincipal = Pick<
  typeof principals.$inferSelect,
  'id' | 'projectId' | 'kind' | 'resourceId' | 'name' | 'level'
>;

/**
 * Marks one expired principal revoked unless it is already, recording `principal.expire` by
 * `system` in the same transaction; true when this call did it.
 */
export async function revokeExpired(db: DbOrTx, p: ExpiredPrincipal): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(principals)
      .set({ revokedAt: new Date() })
      .where(and(eq(principals.id, p.id), isNull(principals.revokedAt)))
      .returning({ id: principals.id });
    if (rows.length === 0) return false;
    await activityQuery(tx, SYSTEM_SOURCE, {
      action: 'principal.expire',
      target: { type: 'principal', id: p.id, name: p.name },
      projectId: p.projectId,
      details: { kind: p.kind, resource_id: p.resourceId, level: p.level },
    });
    return true;
  });
}
