/**
 * Buckets and bucket keys at an S3-compatible provider with AWS IAM, signed with SigV4 by
 * aws4fetch (aws-signed-requests.ts): S3 CreateBucket/DeleteBucket (path-style URLs on
 * STORAGE_ENDPOINT) and the IAM Query API (Version 2010-05-08) on IAM_ENDPOINT: CreateUser,
 * PutUserPolicy, CreateAccessKey, ListUsers, ListAccessKeys, DeleteAccessKey, DeleteUserPolicy,
 * DeleteUser.
 *
 * Every key belongs to its own IAM user under the path `/tether/<bucket>/`, holding one inline
 * policy scoped to that bucket (functions/domain/bucket-policy.ts). The path lets the adapter find
 * the user behind a key and lets the reconciler find orphans.
 */

import { type BucketLevel, bucketPolicy, type KeyLimits } from '../domain/bucket-policy';
import { randomLowerAlnum } from '../lib/ids';
import { AwsSignedRequests, type AwsSignedRequestsOptions, ProviderError } from './aws-signed-requests';
import { type XmlNode, xmlMembers, xmlText } from './xml';

/** The name of the inline policy every key user holds. */
export const POLICY_NAME = 'tether-bucket-access';

/** A new key pair. */
export interface BucketKey {
  userName: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** An access key as listed by IAM. */
export interface AccessKey {
  accessKeyId: string;
  createdAt: Date | null;
}

/** A key user as listed by IAM. */
export interface KeyUser {
  userName: string;
  bucket: string;
  createdAt: Date | null;
}

/**
 * What the services need from the storage provider (S3 buckets and IAM key users). Production:
 * AwsS3Admin; no real IAM runs on a test machine, so locally it talks to the wire-compatible
 * stand-in in scripts/local/stand-ins/aws-stand-in.ts, never part of the production path.
 */
export interface StorageAdmin {
  createBucket(bucket: string, region: string): Promise<void>;
  deleteBucket(bucket: string, region: string): Promise<void>;
  /** A new IAM user (name `prefix` + 8 of [a-z0-9]) with the level's policy and one access key; all or nothing. */
  createKey(bucket: string, level: BucketLevel, prefix: string, limits?: KeyLimits): Promise<BucketKey>;
  setKeyLevel(bucket: string, accessKeyId: string, level: BucketLevel): Promise<void>;
  /** A new key pair for the same user; the old key is deleted once the new one exists. */
  rotateKey(bucket: string, accessKeyId: string): Promise<BucketKey>;
  /** A second key pair for the user of `accessKeyId`, the first kept (IAM holds two a user: LimitExceeded past that). */
  addKey(bucket: string, accessKeyId: string): Promise<BucketKey>;
  /** Deletes that one access key, its user and the user's other key kept; a missing key is not an error. */
  deleteKey(bucket: string, accessKeyId: string): Promise<void>;
  /** Deletes the key, its policy and its user; a missing key is not an error. */
  dropKey(bucket: string, accessKeyId: string): Promise<void>;
  /** Deletes a key user and everything it holds; a missing user is not an error. */
  dropUser(userName: string): Promise<void>;
  /** Every key user, or only `bucket`'s (one listing under its path). */
  listKeyUsers(bucket?: string): Promise<KeyUser[]>;
  /** The access keys a key user holds, with when each was made. */
  keysOf(userName: string): Promise<AccessKey[]>;
}

/** The AWS (IAM + S3) adapter. */
export class AwsS3Admin implements StorageAdmin {
  private readonly aws: AwsSignedRequests;

  constructor(opts: AwsSignedRequestsOptions) {
    this.aws = new AwsSignedRequests(opts);
  }

  async createBucket(bucket: string, region: string): Promise<void> {
    const body =
      region === 'us-east-1'
        ? undefined
        : `<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>${region}</LocationConstraint></CreateBucketConfiguration>`;
    const res = await this.aws.s3('PUT', bucket, region, body);
    if (res.ok) return;
    const err = await this.aws.failure(res, 'CreateBucket');
    if (err.code !== 'BucketAlreadyOwnedByYou') throw err;
  }

  async deleteBucket(bucket: string, region: string): Promise<void> {
    const res = await this.aws.s3('DELETE', bucket, region);
    if (res.ok || res.status === 404) return;
    throw await this.aws.failure(res, 'DeleteBucket');
  }

  async createKey(
    bucket: string,
    level: BucketLevel,
    prefix: string,
    limits?: KeyLimits,
  ): Promise<BucketKey> {
    const path = `/tether/${bucket}/`;
    let userName = '';
    for (let attempt = 0; ; attempt++) {
      userName = `${prefix}${randomLowerAlnum(8)}`;
      try {
        await this.aws.iam('CreateUser', { UserName: userName, Path: path });
        break;
      } catch (err) {
        if (!(err instanceof ProviderError && err.code === 'EntityAlreadyExists') || attempt >= 4) throw err;
      }
    }
    try {
      await this.putPolicy(userName, bucket, level, limits);
      const xml = await this.aws.iam('CreateAccessKey', { UserName: userName });
      return {
        userName,
        accessKeyId: xmlText(xml, 'AccessKeyId'),
        secretAccessKey: xmlText(xml, 'SecretAccessKey'),
      };
    } catch (err) {
      await this.dropUser(userName).catch(() => undefined);
      throw err;
    }
  }

  async setKeyLevel(bucket: string, accessKeyId: string, level: BucketLevel): Promise<void> {
    const userName = await this.userOfKey(bucket, accessKeyId);
    if (!userName) throw new ProviderError(404, 'NoSuchEntity', `no key ${accessKeyId} on bucket ${bucket}`);
    await this.putPolicy(userName, bucket, level);
  }

  async rotateKey(bucket: string, accessKeyId: string): Promise<BucketKey> {
    const userName = await this.userOfKey(bucket, accessKeyId);
    if (!userName) throw new ProviderError(404, 'NoSuchEntity', `no key ${accessKeyId} on bucket ${bucket}`);
    const xml = await this.aws.iam('CreateAccessKey', { UserName: userName });
    const fresh = {
      userName,
      accessKeyId: xmlText(xml, 'AccessKeyId'),
      secretAccessKey: xmlText(xml, 'SecretAccessKey'),
    };
    try {
      await this.aws.iam('DeleteAccessKey', { UserName: userName, AccessKeyId: accessKeyId });
    } catch (err) {
      // Keep the user at exactly one key: undo the new one so a retry starts from the same place.
      await this.aws
        .iam('DeleteAccessKey', { UserName: userName, AccessKeyId: fresh.accessKeyId })
        .catch(() => undefined);
      throw err;
    }
    return fresh;
  }

  async addKey(bucket: string, accessKeyId: string): Promise<BucketKey> {
    const userName = await this.userOfKey(bucket, accessKeyId);
    if (!userName) throw new ProviderError(404, 'NoSuchEntity', `no key ${accessKeyId} on bucket ${bucket}`);
    const xml = await this.aws.iam('CreateAccessKey', { UserName: userName });
    return {
      userName,
      accessKeyId: xmlText(xml, 'AccessKeyId'),
      secretAccessKey: xmlText(xml, 'SecretAccessKey'),
    };
  }

  async deleteKey(bucket: string, accessKeyId: string): Promise<void> {
    const userName = await this.userOfKey(bucket, accessKeyId);
    if (!userName) return;
    await this.aws.iam('DeleteAccessKey', { UserName: userName, AccessKeyId: accessKeyId }).catch((err) => {
      if (!(err instanceof ProviderError && err.code === 'NoSuchEntity')) throw err;
    });
  }

  async dropKey(bucket: string, accessKeyId: string): Promise<void> {
    const userName = await this.userOfKey(bucket, accessKeyId);
    if (userName) await this.dropUser(userName);
  }

  async dropUser(userName: string): Promise<void> {
    const ignoreMissing = (err: unknown) => {
      if (!(err instanceof ProviderError && err.code === 'NoSuchEntity')) throw err;
    };
    // The keys go first: access ends at once even if a later step fails and is retried.
    const keys = await this.aws.iam('ListAccessKeys', { UserName: userName }).catch((err) => {
      ignoreMissing(err);
      return '';
    });
    for (const member of xmlMembers(keys, 'AccessKeyMetadata')) {
      await this.aws
        .iam('DeleteAccessKey', {
          UserName: userName,
          AccessKeyId: xmlText(member, 'AccessKeyId'),
        })
        .catch(ignoreMissing);
    }
    await this.aws
      .iam('DeleteUserPolicy', { UserName: userName, PolicyName: POLICY_NAME })
      .catch(ignoreMissing);
    await this.aws.iam('DeleteUser', { UserName: userName }).catch(ignoreMissing);
  }

  async listKeyUsers(bucket?: string): Promise<KeyUser[]> {
    const users: KeyUser[] = [];
    let marker: string | undefined;
    do {
      const xml = await this.aws.iam('ListUsers', {
        PathPrefix: bucket ? `/tether/${bucket}/` : '/tether/',
        MaxItems: '1000',
        ...(marker ? { Marker: marker } : {}),
      });
      for (const m of xmlMembers(xml, 'Users')) {
        const created = new Date(xmlText(m, 'CreateDate'));
        users.push({
          userName: xmlText(m, 'UserName'),
          bucket: xmlText(m, 'Path').split('/')[2] ?? '',
          createdAt: Number.isNaN(created.getTime()) ? null : created,
        });
      }
      marker = xmlText(xml, 'IsTruncated', '') === 'true' ? xmlText(xml, 'Marker') : undefined;
    } while (marker);
    return users;
  }

  async keysOf(userName: string): Promise<AccessKey[]> {
    const xml = await this.aws.iam('ListAccessKeys', { UserName: userName });
    return xmlMembers(xml, 'AccessKeyMetadata').map((k) => {
      const created = new Date(xmlText(k, 'CreateDate', ''));
      return {
        accessKeyId: xmlText(k, 'AccessKeyId'),
        createdAt: Number.isNaN(created.getTime()) ? null : created,
      };
    });
  }

  /** The IAM user holding `accessKeyId`, found among the bucket's key users (a handful per bucket). */
  private async userOfKey(bucket: string, accessKeyId: string): Promise<string | undefined> {
    const xml = await this.aws.iam('ListUsers', { PathPrefix: `/tether/${bucket}/`, MaxItems: '1000' });
    for (const m of xmlMembers(xml, 'Users')) {
      const userName = xmlText(m, 'UserName');
      const keys = await this.aws.iam('ListAccessKeys', { UserName: userName });
      if (xmlMembers(keys, 'AccessKeyMetadata').some((k) => xmlText(k, 'AccessKeyId') === accessKeyId))
        return userName;
    }
    return undefined;
  }

  private putPolicy(
    userName: string,
    bucket: string,
    level: BucketLevel,
    limits?: KeyLimits,
  ): Promise<XmlNode> {
    return this.aws.iam('PutUserPolicy', {
      UserName: userName,
      PolicyName: POLICY_NAME,
      PolicyDocument: JSON.stringify(bucketPolicy(bucket, level, limits)),
    });
  }
}
