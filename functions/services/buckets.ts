/** Buckets: records of the project's S3 buckets and their own access key. */
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Db, Queryable } from '../../db/client';
import type { BucketRow } from '../../db/rows';
import { buckets } from '../../db/schema';
import type { Adapters } from '../adapters';
import type { Config } from '../env';
import { ApiError } from '../lib/errors';
import { isUuid, newId, randomLowerAlnum } from '../lib/ids';
import type { ProvisioningMessage } from '../queues/messages';
import { bucketCleanupsFrom, queueBucketKeyCleanups } from './access/principal-removal';
import { provisionBucket } from './bucket-provisioning';
import { afterCommit, type StagedPlan, type WriteDeps } from './connections/apply';
import { type ServiceHolders, writeServiceRemoval } from './connections/service-removal';
import { guardRows } from './guarded-write';
import { stageInitialConnection } from './initial-connection';
import { assertNameFree } from './names';

export type { BucketRow };

/** Lists the project's live buckets. */
export function listBuckets(db: Queryable, projectId: string | SQL) {
  return db
    .select()
    .from(buckets)
    .where(and(eq(buckets.projectId, projectId), isNull(buckets.deletedAt)))
    .orderBy(buckets.createdAt);
}

/**
 * Live bucket `id` of project `projectId` (SQL when sent with the caller's lookup) as a query
 * not yet sent; an id that is not a uuid names none. Read its answer with {@link bucketOf}.
 */
export function bucketQuery(db: Queryable, projectId: string | SQL, id: string) {
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

/** The bucket a {@link bucketQuery} found, or 404. */
export function bucketOf(rows: BucketRow[]): BucketRow {
  const [row] = rows;
  if (!row) throw new ApiError('NOT_FOUND', 'bucket not found');
  return row;
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
 * Marks a bucket deleted and removes its connections as disconnects do, in one guarded batch
 * after the request's read of its holders (a holding site changed meanwhile: ConcurrentChange;
 * the bucket deleted meanwhile: 404). Their own keys, the bucket's key and its principals' keys
 * are removed at once (what fails, through the queue). The objects stay at the provider.
 */
export async function deleteBucket(deps: WriteDeps, row: BucketRow, holders: ServiceHolders): Promise<void> {
  const db = deps.reads;
  const { written, after } = await writeServiceRemoval(
    db,
    deps.config,
    { projectId: row.projectId, kind: 'bucket', id: row.id },
    holders,
    {
      after: [
        db.execute(
          guardRows(
            sql`update buckets set deleted_at = now() where id = ${row.id}::uuid and deleted_at is null returning id`,
            { code: 'NOT_FOUND', message: 'bucket not found' },
          ),
        ),
        // The bucket's own key and its principals' keys go with it (CONTRACT §7).
        queueBucketKeyCleanups(db, row.id, row.accessKeyId),
      ],
    },
  );
  const cleanups = [...written.cleanups, ...bucketCleanupsFrom(after[1], row.id)];
  await afterCommit(deps, { ...written, cleanups }, new Map([[row.id, { kind: 'bucket', resource: row }]]));
}
