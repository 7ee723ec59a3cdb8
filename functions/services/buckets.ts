/** Buckets: records of the project's S3 buckets and their own access key. */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { buckets, connections } from '../../db/schema';
import type { Adapters } from '../adapters';
import type { Config } from '../env';
import { newId, randomLowerAlnum, randomPassword } from '../lib/ids';
import type { ProvisioningMessage } from '../queues/messages';
import { stageInitialConnection } from './initial-connection';
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

/** Creates a bucket record (and the initial connection, whose own key is made first). */
export async function createBucket(
  db: Db,
  config: Config,
  adapters: Adapters,
  projectId: string,
  input: { name: string; region?: string },
  queue: Queue<ProvisioningMessage>,
): Promise<BucketRow> {
  const existing = await listBuckets(db, projectId);
  const names = existing.map((b) => b.name);
  assertNameFree(input.name, names, names, 'bucket');
  const physicalName = `${input.name.slice(0, 50).replace(/_/g, '-')}-${randomLowerAlnum(8)}`;
  const row: BucketRow = {
    id: newId(),
    projectId,
    name: input.name,
    region: input.region ?? config.STORAGE_DEFAULT_REGION,
    physicalName,
    accessKeyId: `AKIA${randomLowerAlnum(16).toUpperCase()}`,
    secretKeyCiphertext: await config.keyring.encrypt(randomPassword(40)),
    deletedAt: null,
    createdAt: new Date(),
  };
  const initial = await stageInitialConnection({ db, config, adapters, queue }, projectId, {
    kind: 'bucket',
    resource: row,
  });
  try {
    const saved = await db.transaction(async (tx) => {
      const [inserted] = await tx.insert(buckets).values(row).returning();
      await initial?.write(tx);
      return inserted as BucketRow;
    });
    await initial?.commit();
    return saved;
  } catch (err) {
    await initial?.abort();
    throw err;
  }
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
