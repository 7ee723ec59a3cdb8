/**
 * The IAM policy of a bucket key: objects of exactly one bucket, never the bucket itself.
 * Pure, so it can be proven with an IAM policy evaluator over every action, bucket and level.
 */

import type { BucketLevel } from './levels';

export type { BucketLevel };

/** Actions each level allows. Deliberately no bucket-level action other than ListBucket. */
export const BUCKET_ACTIONS: Record<BucketLevel, { bucket: string[]; objects: string[] }> = {
  read: { bucket: ['s3:ListBucket'], objects: ['s3:GetObject'] },
  // Aborting a multipart upload frees the parts a failed upload left (the SDK's Upload does it on failure).
  'read-write': {
    bucket: ['s3:ListBucket'],
    objects: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
  },
};

/** An IAM policy document. */
export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: Array<{
    Sid: string;
    Effect: 'Allow' | 'Deny';
    Action: string[];
    Resource: string[];
    Condition?: PolicyCondition;
  }>;
}

/** IAM condition operators a key's policy uses. */
export type PolicyCondition = Partial<
  Record<'IpAddress' | 'DateLessThan', Partial<Record<'aws:SourceIp' | 'aws:CurrentTime', string | string[]>>>
>;

/** A named principal's limits: IAM itself refuses requests after `expiresAt` or from elsewhere. */
export interface KeyLimits {
  expiresAt: Date | null;
  allowedSources: string[];
}

/** The condition block for `limits`, or undefined when there is nothing to limit. */
export function keyCondition(limits?: KeyLimits): PolicyCondition | undefined {
  const condition: PolicyCondition = {};
  if (limits?.allowedSources.length) condition.IpAddress = { 'aws:SourceIp': limits.allowedSources };
  if (limits?.expiresAt) condition.DateLessThan = { 'aws:CurrentTime': limits.expiresAt.toISOString() };
  return Object.keys(condition).length > 0 ? condition : undefined;
}

/** Bucket names as S3 accepts them (3-63 of a-z 0-9 . -); anything else must never reach a policy. */
const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The inline policy for a key on `bucket` at `level`. Throws on a name that could widen the resource. */
export function bucketPolicy(bucket: string, level: BucketLevel, limits?: KeyLimits): PolicyDocument {
  if (!BUCKET_RE.test(bucket)) throw new Error(`not a bucket name: ${JSON.stringify(bucket)}`);
  const actions = BUCKET_ACTIONS[level];
  const condition = keyCondition(limits);
  const when = condition ? { Condition: condition } : {};
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'ListTheBucket',
        Effect: 'Allow',
        Action: actions.bucket,
        Resource: [`arn:aws:s3:::${bucket}`],
        ...when,
      },
      {
        Sid: 'ItsObjects',
        Effect: 'Allow',
        Action: actions.objects,
        Resource: [`arn:aws:s3:::${bucket}/*`],
        ...when,
      },
    ],
  };
}
