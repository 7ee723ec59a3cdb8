/**
 * Bucket keys through the AWS IAM/S3 adapter against the IAM/S3 stand-in, whose S3 side
 * authorises every request by evaluating the key's inline policy: keys are used for real.
 */

import { AwsClient } from 'aws4fetch';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Adapters } from '../../functions/adapters';
import { AwsS3Admin } from '../../functions/adapters/s3-admin';
import type { Bindings } from '../../functions/config';
import type { BucketLevel } from '../../functions/domain/levels';
import { storageAccount } from '../../functions/kinds/bucket/bucket-system';
import { loadConfig } from '../../functions/kinds/registry';
import { randomLowerAlnum } from '../../functions/lib/ids';
import {
  type CredentialTarget,
  createConnectionCredential,
  dropCredential,
  rotateCredential,
  setCredentialLevel,
} from '../../functions/use-cases/credentials/connection-credential';
import type { BucketRow } from '../../functions/use-cases/resources/buckets';
import { freePort } from '../../scripts/local/net';
import { type AwsStandIn, startAwsStandIn } from '../../scripts/local/stand-ins/aws-stand-in';
import { adapterOf, adaptersWith, replacing } from '../helpers/adapters';

let aws: AwsStandIn;
let admin: AwsS3Admin;
let adapters: Adapters;
const config = () => loadConfig(inject('workerEnv') as unknown as Bindings);
const bucket = `files-${randomLowerAlnum(8)}`;
const otherBucket = `other-${randomLowerAlnum(8)}`;

function row(physicalName = bucket): BucketRow {
  return {
    id: crypto.randomUUID(),
    projectId: crypto.randomUUID(),
    name: 'files',
    region: 'us-east-1',
    physicalName,
    accessKeyId: 'unused',
    secretKeyCiphertext: 'unused',
    deletedAt: null,
    createdAt: new Date(),
  };
}
const target = (): CredentialTarget => ({ kind: 'bucket', resource: row() });

/** Sends one S3 request with a key, as an app would; returns the status. */
async function s3As(key: { name: string; secret: string }, method: string, path: string, body?: string) {
  const client = new AwsClient({
    accessKeyId: key.name,
    secretAccessKey: key.secret,
    service: 's3',
    region: 'us-east-1',
    retries: 0,
  });
  const res = await client.fetch(`${aws.url}${path}`, { method, body });
  await res.arrayBuffer();
  return res.status;
}

async function own(level: BucketLevel) {
  const made = await createConnectionCredential(
    { adapters, config: config() },
    { target: target(), level: { kind: 'bucket', level } },
  );
  if (made.mode !== 'own') throw new Error('expected an own key');
  return made;
}

beforeAll(async () => {
  aws = await startAwsStandIn();
  admin = new AwsS3Admin({
    accessKeyId: aws.accessKeyId,
    secretAccessKey: aws.secretAccessKey,
    iamEndpoint: aws.url,
    storageEndpoint: aws.url,
  });
  adapters = adaptersWith(adapterOf(storageAccount, admin));
  await admin.createBucket(bucket, 'us-east-1');
  await admin.createBucket(otherBucket, 'us-east-1');
});

afterAll(async () => {
  await aws.stop();
});

describe('bucket keys used for real', () => {
  it('read-write may GET, LIST, PUT and DELETE objects of its bucket only, never the bucket itself', async () => {
    const key = await own('read-write');
    expect(await s3As(key, 'PUT', `/${bucket}/a.txt`, 'hello')).toBe(200);
    expect(await s3As(key, 'GET', `/${bucket}/a.txt`)).toBe(200);
    expect(await s3As(key, 'GET', `/${bucket}?list-type=2`)).toBe(200);
    expect(await s3As(key, 'DELETE', `/${bucket}/a.txt`)).toBe(204);
    expect(await s3As(key, 'DELETE', `/${bucket}`)).toBe(403);
    expect(await s3As(key, 'PUT', `/${bucket}?policy`, '{}')).toBe(403);
    expect(await s3As(key, 'PUT', `/${bucket}?cors`, '<CORSConfiguration/>')).toBe(403);
    expect(await s3As(key, 'PUT', `/${otherBucket}/a.txt`, 'x')).toBe(403);
    expect(await s3As(key, 'GET', `/${otherBucket}?list-type=2`)).toBe(403);
    expect(await s3As(key, 'GET', '/')).toBe(403);
    expect(await s3As({ name: key.name, secret: `${key.secret}x` }, 'GET', `/${bucket}/a.txt`)).toBe(403);
  });

  it('read may GET and LIST; PUT and DELETE are refused', async () => {
    const writer = await own('read-write');
    await s3As(writer, 'PUT', `/${bucket}/r.txt`, 'data');
    const key = await own('read');
    expect(await s3As(key, 'GET', `/${bucket}/r.txt`)).toBe(200);
    expect(await s3As(key, 'GET', `/${bucket}?list-type=2`)).toBe(200);
    expect(await s3As(key, 'PUT', `/${bucket}/r.txt`, 'overwrite')).toBe(403);
    expect(await s3As(key, 'DELETE', `/${bucket}/r.txt`)).toBe(403);
    expect(await s3As(key, 'DELETE', `/${bucket}`)).toBe(403);
  });

  it('a level change keeps the key id and secret and changes what it may do', async () => {
    const key = await own('read');
    expect(await s3As(key, 'PUT', `/${bucket}/l.txt`, 'x')).toBe(403);
    await setCredentialLevel(
      { adapters, config: config() },
      { target: target(), name: key.name, level: { kind: 'bucket', level: 'read-write' } },
    );
    expect(await s3As(key, 'PUT', `/${bucket}/l.txt`, 'x')).toBe(200);
    await setCredentialLevel(
      { adapters, config: config() },
      { target: target(), name: key.name, level: { kind: 'bucket', level: 'read' } },
    );
    expect(await s3As(key, 'PUT', `/${bucket}/l.txt`, 'y')).toBe(403);
  });

  it('rotate: the old key stops working, the new one works, other keys are untouched', async () => {
    const key = await own('read-write');
    const other = await own('read-write');
    const users = Object.keys(aws.state().users).length;
    const fresh = await rotateCredential(
      { adapters, config: config() },
      { target: target(), name: key.name },
    );
    expect(fresh.name).not.toBe(key.name);
    expect(await s3As(key, 'GET', `/${bucket}?list-type=2`)).toBe(403);
    expect(await s3As(fresh, 'PUT', `/${bucket}/rot.txt`, 'x')).toBe(200);
    expect(await s3As(other, 'GET', `/${bucket}/rot.txt`)).toBe(200);
    expect(Object.keys(aws.state().users).length).toBe(users);
  });

  it('drop removes the key and its user and nothing else, and is idempotent', async () => {
    const key = await own('read-write');
    const keep = await own('read');
    const before = Object.keys(aws.state().users).length;
    await dropCredential({ adapters, config: config() }, { target: target(), name: key.name });
    expect(await s3As(key, 'GET', `/${bucket}?list-type=2`)).toBe(403);
    expect(await s3As(keep, 'GET', `/${bucket}?list-type=2`)).toBe(200);
    expect(Object.keys(aws.state().users).length).toBe(before - 1);
    await dropCredential({ adapters, config: config() }, { target: target(), name: key.name });
  });
});

describe('failures leave nothing behind', () => {
  it('a failure after the user exists removes the user again', async () => {
    const failing = new AwsS3Admin({
      accessKeyId: aws.accessKeyId,
      secretAccessKey: aws.secretAccessKey,
      iamEndpoint: aws.url,
      storageEndpoint: aws.url,
      fetcher: async (input, init) => {
        const req = new Request(input, init);
        if ((await req.clone().text()).includes('Action=CreateAccessKey'))
          return new Response('<Error/>', { status: 503 });
        return fetch(req);
      },
    });
    const before = aws.state();
    const attempt = createConnectionCredential(
      { adapters: replacing(adapters, adapterOf(storageAccount, failing)), config: config() },
      {
        target: target(),
        level: {
          kind: 'bucket',
          level: 'read',
        },
      },
    );
    await expect(attempt).rejects.toMatchObject({ status: 503 });
    expect(aws.state()).toEqual(before);
  });

  it('an unreachable IAM answers 503 and changes nothing', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const down = new AwsS3Admin({
      accessKeyId: aws.accessKeyId,
      secretAccessKey: aws.secretAccessKey,
      iamEndpoint: closed,
      storageEndpoint: closed,
    });
    const key = await own('read');
    const before = aws.state();
    const downAdapters = replacing(adapters, adapterOf(storageAccount, down));
    await expect(
      createConnectionCredential(
        { adapters: downAdapters, config: config() },
        { target: target(), level: { kind: 'bucket', level: 'read' } },
      ),
    ).rejects.toMatchObject({
      status: 503,
    });
    await expect(
      rotateCredential({ adapters: downAdapters, config: config() }, { target: target(), name: key.name }),
    ).rejects.toMatchObject({
      status: 503,
    });
    await expect(
      setCredentialLevel(
        { adapters: downAdapters, config: config() },
        { target: target(), name: key.name, level: { kind: 'bucket', level: 'read-write' } },
      ),
    ).rejects.toMatchObject({
      status: 503,
    });
    expect(aws.state()).toEqual(before);
  });

  it('no configured storage admin answers 503', async () => {
    await expect(
      createConnectionCredential(
        { adapters: replacing(adapters, adapterOf(storageAccount, null)), config: config() },
        {
          target: target(),
          level: {
            kind: 'bucket',
            level: 'read',
          },
        },
      ),
    ).rejects.toMatchObject({
      status: 503,
    });
  });
});
