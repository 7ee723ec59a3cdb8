/**
 * A bucket at the storage provider: the bucket itself and the bucket's own key (the shared
 * credential its services view shows), made before any row so a failure leaves nothing: what
 * was made is removed again before the 503 is answered.
 */
import type { Adapters } from '../../adapters';
import { ApiError } from '../../lib/errors';
import { log } from '../../lib/logger';

/** A bucket made at the provider, with a way to take it back. */
export interface ProvisionedBucket {
  accessKeyId: string;
  secretAccessKey: string;
  /** Removes the key and the bucket (when the record could not be written). */
  undo(): Promise<void>;
}

/** Creates the bucket and its own read-write key; 503 (with nothing left behind) on failure. */
export async function provisionBucket(
  adapters: Adapters,
  physicalName: string,
  region: string,
): Promise<ProvisionedBucket> {
  const s3 = adapters.s3;
  if (!s3)
    throw new ApiError('SERVICE_UNAVAILABLE', 'no storage admin system is configured (IAM_ACCESS_KEY_ID)');
  try {
    await s3.createBucket(physicalName, region);
  } catch (err) {
    log.error('creating a bucket failed:', err);
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      'the storage provider could not create the bucket; nothing was changed, retry later',
    );
  }
  const undoBucket = () =>
    s3.deleteBucket(physicalName, region).catch((e: Error) => log.error('removing a new bucket failed:', e));
  try {
    // `b_` keeps the bucket's own key apart from connections' `c_` keys (and from orphan repair).
    const key = await s3.createKey(physicalName, 'read-write', 'b_');
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
    log.error('creating a bucket key failed:', err);
    await undoBucket();
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      'the storage provider could not create the bucket key; nothing was changed, retry later',
    );
  }
}
