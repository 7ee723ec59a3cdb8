/** Buckets: records of the project's S3 buckets and their own access key. */
import { sql } from 'drizzle-orm';
import type { BucketRow } from '../../../db/rows';
import { buckets } from '../../../db/schema';
import { storageAccount } from '../../kinds/bucket/bucket-system';
import { newId, randomLowerAlnum } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { afterCommit } from '../connections/apply';
import { type ServiceHolders, writeServiceRemoval } from '../connections/service-removal';
import { guardRows } from '../store/guarded-write';
import { provisionBucket } from './bucket-provisioning';
import { assertNameFree } from './name-checks';
import { type InitialSite, writeNewService } from './new-service-write';
import { bucketCleanupsFrom, queueBucketKeyCleanups } from './principal-removal';
import { serviceReads } from './service-reads';

export type { BucketRow };

/** The bucket reads its routes send with their caller (resources/service-reads.ts): list, one by id, its 404, a creation's. */
const reads = serviceReads('bucket');
export const { list: listBuckets, query: bucketQuery } = reads;
export const { of: bucketOf, creation: bucketCreationQueries } = reads;

/**
 * Creates the bucket and its own key at the provider, then its record with the initial
 * connection (whose own key is made first) in one guarded batch (writeNewService); on any
 * failure the bucket and its key are removed again. `existing` and `initial` were read with
 * the caller.
 */
export async function createBucket(
  ctx: RequestContext,
  projectId: string,
  input: { name: string; region?: string },
  read: { existing: BucketRow[]; initial: InitialSite },
): Promise<BucketRow> {
  const { config } = ctx;
  const names = read.existing.map((b) => b.name);
  assertNameFree(input.name, names, names, 'bucket');
  const physicalName = `${input.name.slice(0, 50).replace(/_/g, '-')}-${randomLowerAlnum(8)}`;
  const region = input.region ?? storageAccount.settings(config).STORAGE_DEFAULT_REGION;
  // The bucket and its own key exist at the provider before any row; undone on any later failure.
  const made = await provisionBucket(ctx, { physicalName, region });
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
  try {
    await writeNewService(ctx, { kind: 'bucket', resource: row }, read.initial, (db) =>
      db.insert(buckets).values(row),
    );
    return row;
  } catch (err) {
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
export async function deleteBucket(
  ctx: RequestContext,
  row: BucketRow,
  holders: ServiceHolders,
): Promise<void> {
  const db = ctx.http;
  const { written, after } = await writeServiceRemoval(
    db,
    ctx.config,
    { projectId: row.projectId, kind: 'bucket', id: row.id, name: row.name },
    holders,
    {
      after: [
        db.execute(
          guardRows(
            sql`update buckets set deleted_at = now() where id = ${row.id}::uuid and deleted_at is null returning id`,
            { code: 'NOT_FOUND', message: 'bucket not found' },
          ),
        ),
        // The bucket's own key and its principals' keys go with it (contract §7).
        queueBucketKeyCleanups(db, row.id, row.accessKeyId),
      ],
    },
    ctx.activity,
  );
  const cleanups = [...written.cleanups, ...bucketCleanupsFrom(after[1], row.id)];
  await afterCommit(ctx, { ...written, cleanups }, new Map([[row.id, { kind: 'bucket', resource: row }]]));
}
