/**
 * The StorageAdmin contract: buckets and per-bucket keys, observed by using the keys for real
 * (SigV4-signed S3 requests, as an app sends them).
 */
import { AwsClient } from 'aws4fetch';
import { expect, it } from 'vitest';
import type { BucketKey, StorageAdmin } from '../../../functions/adapters/s3-admin';
import { randomLowerAlnum } from '../../../functions/lib/ids';

/** A StorageAdmin with two buckets made through it, and where S3 answers. */
export interface StorageHarness {
  admin: StorageAdmin;
  bucket: string;
  otherBucket: string;
  region: string;
  /** Where a path-style S3 request goes (`<endpoint>/<bucket>/<key>`). */
  s3Endpoint: string;
  /**
   * Waits until `probe` gives `want` (real IAM takes seconds to apply a change everywhere; a
   * stand-in applies it at once, so there it checks once).
   */
  settle<T>(probe: () => Promise<T>, want: T): Promise<T>;
}

/** The status of one S3 request signed with `key`, as an app sends it. */
async function s3As(h: StorageHarness, key: BucketKey, method: string, path: string, body?: string) {
  const client = new AwsClient({
    accessKeyId: key.accessKeyId,
    secretAccessKey: key.secretAccessKey,
    service: 's3',
    region: h.region,
    retries: 0,
  });
  const res = await client.fetch(`${h.s3Endpoint}${path}`, { method, body });
  await res.arrayBuffer();
  return res.status;
}

const ok = (status: number) => status >= 200 && status < 300;

export function storageAdminCases(get: () => StorageHarness): void {
  const object = () => `contract/${randomLowerAlnum(8)}.txt`;

  it('a read-write key may PUT and GET in its bucket and nothing in another', async () => {
    const h = get();
    const key = await h.admin.createKey(h.bucket, 'read-write', 'c_');
    const path = `/${h.bucket}/${object()}`;
    expect(ok(await h.settle(() => s3As(h, key, 'PUT', path, 'hello'), 200))).toBe(true);
    expect(await s3As(h, key, 'GET', path)).toBe(200);
    expect(await s3As(h, key, 'PUT', `/${h.otherBucket}/${object()}`, 'no')).toBe(403);
    await h.admin.dropKey(h.bucket, key.accessKeyId);
  });

  it('moved to read, the same key may GET and not PUT; back at read-write it may PUT', async () => {
    const h = get();
    const key = await h.admin.createKey(h.bucket, 'read-write', 'c_');
    const path = `/${h.bucket}/${object()}`;
    await h.settle(() => s3As(h, key, 'PUT', path, 'v1'), 200);
    await h.admin.setKeyLevel(h.bucket, key.accessKeyId, 'read');
    expect(await h.settle(() => s3As(h, key, 'PUT', path, 'v2'), 403)).toBe(403);
    expect(await s3As(h, key, 'GET', path)).toBe(200);
    await h.admin.setKeyLevel(h.bucket, key.accessKeyId, 'read-write');
    expect(await h.settle(() => s3As(h, key, 'PUT', path, 'v3'), 200)).toBe(200);
    await h.admin.dropKey(h.bucket, key.accessKeyId);
  });

  it('a rotated key works for the same user, and the old key is refused', async () => {
    const h = get();
    const key = await h.admin.createKey(h.bucket, 'read-write', 'c_');
    const rotated = await h.admin.rotateKey(h.bucket, key.accessKeyId);
    expect(rotated.userName).toBe(key.userName);
    expect(rotated.accessKeyId).not.toBe(key.accessKeyId);
    const path = `/${h.bucket}/${object()}`;
    expect(await h.settle(() => s3As(h, rotated, 'PUT', path, 'new'), 200)).toBe(200);
    expect(await h.settle(() => s3As(h, key, 'GET', path), 403)).toBe(403);
    expect((await h.admin.keysOf(key.userName)).map((k) => k.accessKeyId)).toEqual([rotated.accessKeyId]);
    await h.admin.dropKey(h.bucket, rotated.accessKeyId);
  });

  it('a dropped key is refused and its user unlisted; dropping it again is a no-op', async () => {
    const h = get();
    const key = await h.admin.createKey(h.bucket, 'read', 'c_');
    expect((await h.admin.listKeyUsers()).find((u) => u.userName === key.userName)?.bucket).toBe(h.bucket);
    await h.admin.dropKey(h.bucket, key.accessKeyId);
    expect(await h.settle(() => s3As(h, key, 'GET', `/${h.bucket}/${object()}`), 403)).toBe(403);
    expect((await h.admin.listKeyUsers()).some((u) => u.userName === key.userName)).toBe(false);
    await expect(h.admin.dropKey(h.bucket, key.accessKeyId)).resolves.toBeUndefined();
  });

  it('creating a bucket it already owns is a no-op, and its keys keep working', async () => {
    const h = get();
    const key = await h.admin.createKey(h.bucket, 'read-write', 'c_');
    await h.admin.createBucket(h.bucket, h.region);
    const path = `/${h.bucket}/${object()}`;
    expect(await h.settle(() => s3As(h, key, 'PUT', path, 'still'), 200)).toBe(200);
    await h.admin.dropKey(h.bucket, key.accessKeyId);
  });
}
