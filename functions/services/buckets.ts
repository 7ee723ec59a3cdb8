/** Buckets: records of the project's S3 buckets and their own access key. */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { buckets, connections } from '../../db/schema';
import type { Config } from '../env';
import { newId, randomLowerAlnum, randomPassword } from '../lib/ids';
import { connectNewService } from './initial-connection';
import { assertNameFree } from './names';

/** A bucket row. */
export type BucketRow = typeof buckets.$inferSelect;

/** Lists the project's live buckets. */
export function listBuckets(db: Db, projectId: string): Promise<BucketRow[]> {
  return db
    .select()
    .from(buckets)
    .where(and(eq(buckets.projectId, projectId), isNull(buckets.deletedAt)))
    .orderBy(buckets.createdAt);
}

/** Creates a bucket record (and the initial connection). */
export async function createBucket(
  db: Db,
  config: Config,
  projectId: string,
  input: { name: string; region?: string },
): Promise<BucketRow> {
  const existing = await listBuckets(db, projectId);
  const names = existing.map((b) => b.name);
  assertNameFree(input.name, names, names, 'bucket');
  const physicalName = `${input.name.slice(0, 50).replace(/_/g, '-')}-${randomLowerAlnum(8)}`;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(buckets)
      .values({
        id: newId(),
        projectId,
        name: input.name,
        region: input.region ?? config.STORAGE_DEFAULT_REGION,
        physicalName,
        accessKeyId: `AKIA${randomLowerAlnum(16).toUpperCase()}`,
        secretKeyCiphertext: await config.keyring.encrypt(randomPassword(40)),
      })
      .returning();
    await connectNewService(tx, projectId, 'bucket', (row as BucketRow).id);
    return row as BucketRow;
  });
}

/** Marks a bucket deleted and removes its connections. */
export async function deleteBucket(db: Db, row: BucketRow): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(buckets).set({ deletedAt: new Date() }).where(eq(buckets.id, row.id));
    await tx
      .delete(connections)
      .where(and(eq(connections.kind, 'bucket'), eq(connections.resourceId, row.id)));
  });
}
