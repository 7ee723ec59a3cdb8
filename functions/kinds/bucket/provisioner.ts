/** Connection credentials on a bucket: IAM access keys whose policy reaches that bucket only. */
import type { StorageAdmin } from '../../adapters/s3-admin';
import { type BucketProvisioner, outside } from '../provisioner';

/** The provisioner of bucket keys through `admin`. */
export function bucketProvisioner(admin: StorageAdmin): BucketProvisioner {
  return {
    async create(bucket, level, limits) {
      const key = await outside('prepare the bucket key', () =>
        admin.createKey(bucket.physicalName, level, 'c_', limits),
      );
      return { name: key.accessKeyId, secret: key.secretAccessKey };
    },
    async setLevel(bucket, name, level) {
      await outside('change the bucket key', () => admin.setKeyLevel(bucket.physicalName, name, level));
    },
    async rotate(bucket, name) {
      const key = await outside('replace the bucket key', () => admin.rotateKey(bucket.physicalName, name));
      return { name: key.accessKeyId, secret: key.secretAccessKey };
    },
    async drop(bucket, name) {
      await outside('delete the bucket key', () => admin.dropKey(bucket.physicalName, name));
    },
  };
}
