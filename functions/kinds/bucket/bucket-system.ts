/** The storage account: its variables (STORAGE_*, IAM_*) and its S3 and IAM adapter. */
import { z } from 'zod';
import type { Adapters } from '../../adapters';
import { AwsS3Admin, type StorageAdmin } from '../../adapters/s3-admin';
import { halfOfPair } from '../../config';
import { ApiError } from '../../lib/errors';
import { defineSystem } from '../outside-system';

/** The storage account buckets live in; its adapter is null where no admin key is configured. */
export const storageAccount = defineSystem({
  name: 'bucket',
  variables: {
    STORAGE_ENDPOINT: z.string().url().default('https://s3.amazonaws.com'),
    STORAGE_DEFAULT_REGION: z.string().default('us-east-1'),
    IAM_ENDPOINT: z.string().url().default('https://iam.amazonaws.com'),
    IAM_ACCESS_KEY_ID: z.string().optional(),
    IAM_SECRET_ACCESS_KEY: z.string().optional(),
  },
  check: (vars) => halfOfPair(vars, 'IAM_ACCESS_KEY_ID', 'IAM_SECRET_ACCESS_KEY'),
  build: (vars): StorageAdmin | null =>
    vars.IAM_ACCESS_KEY_ID && vars.IAM_SECRET_ACCESS_KEY
      ? new AwsS3Admin({
          accessKeyId: vars.IAM_ACCESS_KEY_ID,
          secretAccessKey: vars.IAM_SECRET_ACCESS_KEY,
          iamEndpoint: vars.IAM_ENDPOINT,
          storageEndpoint: vars.STORAGE_ENDPOINT,
        })
      : null,
});

/** The storage admin system; 503 SERVICE_UNAVAILABLE where the deployment configures none. */
export function storageAdmin(adapters: Adapters): StorageAdmin {
  const s3 = storageAccount.adapter(adapters);
  if (!s3)
    throw new ApiError('SERVICE_UNAVAILABLE', 'no storage admin system is configured (IAM_ACCESS_KEY_ID)');
  return s3;
}
