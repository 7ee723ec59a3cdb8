/** Connection credentials on a bucket: IAM access keys whose policy reaches that bucket only. */
import { ProviderError } from '../../adapters/aws-signed-requests';
import type { StorageAdmin } from '../../adapters/s3-admin';
import { ApiError } from '../../lib/errors';
import { type BucketProvisioner, outside } from '../credential-provisioner';

/** The provisioner of bucket keys through `admin`. */
export function bucketProvisioner(admin: StorageAdmin): BucketProvisioner {
  return {
    async create(bucket, level, limits) {
      const key = await outside('prepare the bucket key', () =>
        admin.createKey(bucket.physicalName, level, 'c_', limits).catch((err: unknown) => {
          throw usersLimitReached(err) ?? err;
        }),
      );
      return { name: key.accessKeyId, secret: key.secretAccessKey };
    },
    async setLevel(bucket, name, level) {
      await outside('change the bucket key', () => admin.setKeyLevel(bucket.physicalName, name, level));
    },
    async rotate(bucket, name) {
      const key = await outside('replace the bucket key', () =>
        admin.rotateKey(bucket.physicalName, name).catch((err: unknown) => {
          throw atQuota(err) ? keyLimitReached() : err;
        }),
      );
      return { name: key.accessKeyId, secret: key.secretAccessKey };
    },
    async beside(bucket, name) {
      const key = await outside('make the bucket key', () =>
        admin.addKey(bucket.physicalName, name).catch((err: unknown) => {
          throw atQuota(err) ? keyLimitReached() : err;
        }),
      );
      return { name: key.accessKeyId, secret: key.secretAccessKey };
    },
    async retire(bucket, name) {
      await outside('delete the old bucket key', () => admin.deleteKey(bucket.physicalName, name));
    },
    async drop(bucket, name) {
      await outside('delete the bucket key', () => admin.dropKey(bucket.physicalName, name));
    },
  };
}

/** IAM refused for one of its quotas (LimitExceeded, HTTP 409): refused before anything was made. */
const atQuota = (err: unknown) => err instanceof ProviderError && err.code === 'LimitExceeded';

/**
 * 409 naming IAM's limit of users an account holds (5,000, which AWS does not raise) when
 * CreateUser was refused for it: every bucket and every connection or principal with its own
 * bucket key is one user, and IAM refuses the user before anything is made. Undefined for any
 * other error.
 */
export function usersLimitReached(err: unknown): ApiError | undefined {
  if (!atQuota(err)) return undefined;
  const quota = /UsersPerAccount:\s*(\d+)/.exec((err as Error).message)?.[1];
  if (!quota) return undefined;
  return new ApiError(
    'CONFLICT',
    `the storage provider's IAM account holds its limit of users (${Number(quota).toLocaleString('en-US')} an account; every bucket and every bucket key of a connection or principal is one): remove unused buckets, connections or principals first; nothing was changed`,
  );
}

/**
 * 409 naming IAM's limit of two access keys a user: a rotation makes the new key before it
 * deletes the old one, so a key user that already holds two (one made outside Tether) cannot rotate.
 */
const keyLimitReached = () =>
  new ApiError(
    'CONFLICT',
    "the bucket key's IAM user already holds IAM's limit of access keys (2 a user; a rotation makes the new key before deleting the old): delete the key made outside Tether at IAM, then rotate again; nothing was changed",
  );
