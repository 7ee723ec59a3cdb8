/**
 * The bucket key policies, proven with a real IAM policy evaluator (@cloud-copilot/iam-simulate)
 * over every action x bucket x level: a key reaches the objects of its own bucket only, read
 * may only GET and LIST, and no level may touch the bucket itself or its settings.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { type BucketLevel, bucketPolicy } from './bucket-policy';

const ACCOUNT = '123456789012';
const OWN = 'photos-k3j9x0qa';
const OTHERS = ['photos-k3j9x0qb', 'photos', 'photos-k3j9x0qa-2', 'other-bucket'];

/** Object actions and whether each level may perform them. */
const OBJECT_ACTIONS: Array<[string, Record<BucketLevel, boolean>]> = [
  ['s3:GetObject', { read: true, 'read-write': true }],
  ['s3:PutObject', { read: false, 'read-write': true }],
  ['s3:DeleteObject', { read: false, 'read-write': true }],
  ['s3:AbortMultipartUpload', { read: false, 'read-write': true }],
  ['s3:GetObjectAcl', { read: false, 'read-write': false }],
  ['s3:PutObjectAcl', { read: false, 'read-write': false }],
  ['s3:DeleteObjectVersion', { read: false, 'read-write': false }],
  ['s3:PutObjectRetention', { read: false, 'read-write': false }],
];
/** Bucket actions: only ListBucket is ever allowed. */
const BUCKET_ACTIONS: Array<[string, boolean]> = [
  ['s3:ListBucket', true],
  ['s3:DeleteBucket', false],
  ['s3:CreateBucket', false],
  ['s3:PutBucketPolicy', false],
  ['s3:DeleteBucketPolicy', false],
  ['s3:PutBucketAcl', false],
  ['s3:PutBucketCORS', false],
  ['s3:PutBucketVersioning', false],
  ['s3:PutLifecycleConfiguration', false],
  ['s3:PutBucketPublicAccessBlock', false],
  ['s3:PutEncryptionConfiguration', false],
  ['s3:PutBucketWebsite', false],
  ['s3:GetBucketPolicy', false],
  ['s3:ListBucketVersions', false],
];

async function decide(level: BucketLevel, action: string, resource: string): Promise<string> {
  const result = await runSimulation(
    {
      identityPolicies: [{ name: 'tether-bucket-access', policy: bucketPolicy(OWN, level) }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:user/tether/${OWN}/c_abcdefgh`,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: {},
      },
    },
    {},
  );
  if (result.resultType === 'error') throw new Error(JSON.stringify(result.errors));
  return result.overallResult;
}

const expected = (allow: boolean) => (allow ? 'Allowed' : 'ImplicitlyDenied');

describe.each(['read', 'read-write'] as const)('a %s key', (level) => {
  it.each(OBJECT_ACTIONS)('%s on its own bucket objects', async (action, allow) => {
    for (const key of ['a.txt', 'dir/b.png', 'x/../y']) {
      expect(await decide(level, action, `arn:aws:s3:::${OWN}/${key}`)).toBe(expected(allow[level]));
    }
  });

  it.each(BUCKET_ACTIONS)('%s on its own bucket', async (action, allow) => {
    expect(await decide(level, action, `arn:aws:s3:::${OWN}`)).toBe(expected(allow));
  });

  it.each(OTHERS)('nothing at all on bucket %s', async (other) => {
    for (const [action] of [...OBJECT_ACTIONS, ...BUCKET_ACTIONS]) {
      const isObject = OBJECT_ACTIONS.some(([a]) => a === action);
      const resource = isObject ? `arn:aws:s3:::${other}/a.txt` : `arn:aws:s3:::${other}`;
      expect(await decide(level, action, resource)).toBe('ImplicitlyDenied');
    }
  });

  it('no IAM or account-wide action', async () => {
    expect(await decide(level, 's3:ListAllMyBuckets', '*')).toBe('ImplicitlyDenied');
    expect(
      await decide(level, 'iam:CreateAccessKey', `arn:aws:iam::${ACCOUNT}:user/tether/${OWN}/c_abcdefgh`),
    ).toBe('ImplicitlyDenied');
  });
});

describe('bucket names in policies', () => {
  it('refuses a name that would widen the resource', () => {
    for (const bad of ['*', 'a*', 'photos/*', 'Photos', 'a', 'x?y', '']) {
      expect(() => bucketPolicy(bad, 'read')).toThrow();
    }
  });
});
