/**
 * A bucket at the storage provider: the bucket itself and the bucket's own key (the shared
 * credential its services view shows), made before any row so a failure leaves nothing: what
 * was made is removed again before the 503 is answered.
 */

import { usersLimitReached } from '../../kinds/bucket/bucket-provisioner';
import { storageAdmin } from '../../kinds/bucket/bucket-system';
import { atSystem } from '../../kinds/credential-provisioner';
import { log } from '../../lib/logger';
import type { RequestContext } from '../../request-context';

/** A bucket made at the provider, with a way to take it back. */
export interface ProvisionedBucket {
  accessKeyId: string;
  secretAccessKey: string;
  /** Removes the key and the bucket (when the record could not be written). */
  undo(): Promise<void>;
}

/** Creates the bucket and its own read-write key; 503 (with nothing left behind) on failure. */
export async function provisionBucket(
  ctx: Pick<RequestContext, 'adapters'>,
  { physicalName, region }: { physicalName: string; region: string },
): Promise<ProvisionedBucket> {
  const s3 = storageAdmin(ctx.adapters);
  await atSystem(
    'creating a bucket',
    'the storage provider could not create the bucket; nothing was changed, retry later',
    () => s3.createBucket(physicalName, region),
  );
  const undoBucket = () =>
    s3.deleteBucket(physicalName, region).catch((e: Error) => log.error('removing a new bucket failed:', e));
  try {
    // `b_` keeps the bucket's own key apart from connections' `c_` keys (and from orphan repair).
    const key = await atSystem(
      'creating a bucket key',
      'the storage provider could not create the bucket key; nothing was changed, retry later',
      () => s3.createKey(physicalName, 'read-write', 'b_'),
    ).catch((err: { cause?: unknown }) => {
      // IAM's users quota is no outage: 409 naming it, not the 503's retry later.
      throw usersLimitReached(err.cause) ?? err;
    });
    return {
      accessKeyId: key.accessKeyId,
      secretAccessKey: key.secretAccessKey,
      async undo() {
        await s3
          .dropUser(key.userName)
          .catch((e: Error) => log.error('removing a new bucket key failed:', e));
        await undoBucket();
      },
    };
  } catch (err) {
    await undoBucket();
    throw err;
  }
}
