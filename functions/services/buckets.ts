/** Buckets: records of the project's S3 buckets and their own access key. */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { buckets, connections, credentialCleanups } from '../../db/schema';
import type { Adapters } from '../adapters';
import type { Config } from '../env';
import { newId, randomLowerAlnum } from '../lib/ids';
import type { ProvisioningMessage } from '../queues/messages';
import { provisionBucket } from './bucket-provisioning';
import type { StagedPlan } from './connections/apply';
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
  const region = input.region ?? config.STORAGE_DEFAULT_REGION;
  // The bucket and its own key exist at the provider before any row; undone on any later failure.
  const made = await provisionBucket(adapters, physicalName, region);
  const row: BucketRow = {
    id: newId(),
    projectId,
    name: input.name,
    region,
    physicalName,
    accessKeyId: made.accessKeyId,
    secretKeyCiphertext: await config.keyring.encrypt(made.secretAccessKey),
    deletedAt: null,
    createdAt: new Date(),
  };
  let initial: StagedPlan | null = null;
  try {
    initial = await stageInitialConnection({ db, config, adapters, queue }, projectId, {
      kind: 'bucket',
      resource: row,
    });
    const saved = await db.transaction(async (tx) => {
      const [inserted] = await tx.insert(buckets).values(row).returning();
      await initial?.write(tx);
      return inserted as BucketRow;
    });
    await initial?.commit();
    return saved;
  } catch (err) {
    await initial?.abort();
    await made.undo();
    throw err;
  }
}

/**
 * Marks a bucket deleted and removes its connections; their own keys and the bucket's key are
 * queued for removal (the reconciler sends the cleanups). The objects stay at the provider.
 */
export async function deleteBucket(db: Db, row: BucketRow): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(buckets).set({ deletedAt: new Date() }).where(eq(buckets.id, row.id));
    const removed = await tx
      .delete(connections)
      .where(and(eq(connections.kind, 'bucket'), eq(connections.resourceId, row.id)))
      .returning({ mode: connections.credentialMode, name: connections.credentialName });
    const keys = [
      row.accessKeyId,
      ...removed.filter((r) => r.mode === 'own' && r.name).map((r) => r.name as string),
    ];
    await tx
      .insert(credentialCleanups)
      .values(
        keys.map((credentialName) => ({
          id: newId(),
          kind: 'bucket' as const,
          resourceId: row.id,
          credentialName,
        })),
      );
  });
}
