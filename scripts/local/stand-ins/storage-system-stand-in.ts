/** Buckets' storage for `npm start`: the AWS IAM and S3 stand-in, unless IAM_ACCESS_KEY_ID is given. */
import { join } from 'node:path';
import { startAwsStandIn } from './aws-stand-in';
import type { OutsideSystemStandIn } from './outside-system-stand-in';

/** The storage account's stand-in. */
export const storageStandIn: OutsideSystemStandIn = {
  system: 'bucket',
  async start(dir, given) {
    if (given.IAM_ACCESS_KEY_ID) return null;
    const aws = await startAwsStandIn({ stateFile: join(dir, 'aws.json') });
    return {
      env: {
        IAM_ENDPOINT: aws.url,
        STORAGE_ENDPOINT: aws.url,
        IAM_ACCESS_KEY_ID: aws.accessKeyId,
        IAM_SECRET_ACCESS_KEY: aws.secretAccessKey,
      },
      stop: () => aws.stop(),
    };
  },
};
