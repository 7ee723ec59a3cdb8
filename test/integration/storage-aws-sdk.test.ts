/**
 * The official AWS SDK v3 against the local storage, with the keys a site is handed: what an
 * app does with `STORAGE_*` works on the first try. Regression: the SDK's `?x-id=` query was
 * refused (501), its streamed uploads (aws-chunked) were stored with their framing, listings had
 * no Size, and a rotated key answered IAM's InvalidClientTokenId instead of S3's InvalidAccessKeyId.
 */
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { connectSite, effectiveVars, type SeededProject, seedProject } from '../helpers/connections';

let p: SeededProject;
let readWrite: { client: S3Client; bucket: string };
let read: { client: S3Client; bucket: string };

/** An S3 client built from a site's variables, as the README tells apps to. */
function clientOf(vars: Record<string, string>): { client: S3Client; bucket: string } {
  const client = new S3Client({
    endpoint: vars.STORAGE_ENDPOINT,
    region: vars.STORAGE_REGION,
    forcePathStyle: true,
    credentials: {
      accessKeyId: vars.STORAGE_ACCESS_KEY ?? '',
      secretAccessKey: vars.STORAGE_SECRET_KEY ?? '',
    },
    maxAttempts: 1,
  });
  return { client, bucket: vars.STORAGE_BUCKET ?? '' };
}

/** The S3 error code a command is refused with. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3ServiceException) return err.name;
    throw err;
  }
  return 'accepted';
}

beforeAll(async () => {
  p = await seedProject(inject('baseUrl'), 2, { buckets: 1 });
  const bucketId = p.buckets[0]?.id;
  for (const [i, level] of [
    [0, 'read-write'],
    [1, 'read'],
  ] as const) {
    const res = await connectSite(p, { kind: 'bucket', resource_id: bucketId, level }, p.sites[i]?.id);
    expect(res.status, res.text).toBe(201);
  }
  readWrite = clientOf(await effectiveVars(p, p.sites[0]?.id));
  read = clientOf(await effectiveVars(p, p.sites[1]?.id));
});

describe('the AWS SDK v3 with a read-write key', () => {
  it('puts (plain and streamed), gets, lists with Size/ETag/LastModified, copies, deletes one and many', async () => {
    const { client, bucket } = readWrite;
    const put = await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'docs/plain file.txt',
        Body: 'hello',
        ContentType: 'text/plain',
      }),
    );
    expect(put.ETag).toBe('"5d41402abc4b2a76b9719d911017c592"');
    // A stream: the SDK sends it aws-chunked with a trailing CRC32, which must be decoded, not stored.
    const stream = Readable.from([Buffer.from('streamed '), Buffer.from('payload')]);
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'docs/streamed.txt', Body: stream, ContentLength: 16 }),
    );

    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: 'docs/streamed.txt' }));
    expect(await got.Body?.transformToString()).toBe('streamed payload');
    const plain = await client.send(new GetObjectCommand({ Bucket: bucket, Key: 'docs/plain file.txt' }));
    expect(plain.ContentType).toBe('text/plain');
    expect(await plain.Body?.transformToString()).toBe('hello');

    const copy = await client.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'copy.txt',
        CopySource: `${bucket}/docs/plain%20file.txt`,
      }),
    );
    expect(copy.CopyObjectResult?.ETag).toBe(put.ETag);

    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents?.map((o) => [o.Key, o.Size, o.ETag])).toEqual([
      ['copy.txt', 5, put.ETag],
      ['docs/plain file.txt', 5, put.ETag],
      ['docs/streamed.txt', 16, expect.stringMatching(/^"[0-9a-f]{32}"$/)],
    ]);
    for (const o of listed.Contents ?? [])
      expect(Date.now() - (o.LastModified?.getTime() ?? 0)).toBeLessThan(60_000);
    const folders = await client.send(new ListObjectsV2Command({ Bucket: bucket, Delimiter: '/' }));
    expect(folders.CommonPrefixes?.map((c) => c.Prefix)).toEqual(['docs/']);
    expect(folders.Contents?.map((o) => o.Key)).toEqual(['copy.txt']);

    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'copy.txt' }));
    expect(await refusal(client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'copy.txt' })))).toBe(
      'NotFound',
    );
    const many = await client.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: [{ Key: 'docs/plain file.txt' }, { Key: 'docs/streamed.txt' }] },
      }),
    );
    expect(many.Deleted?.map((d) => d.Key).sort()).toEqual(['docs/plain file.txt', 'docs/streamed.txt']);
    expect(many.Errors ?? []).toEqual([]);
    expect((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).KeyCount).toBe(0);
  });

  it('uploads in parts: a 5 MiB part and a last small one make one object with a multipart ETag', async () => {
    const { client, bucket } = readWrite;
    const { UploadId } = await client.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'big.bin' }),
    );
    const first = Buffer.alloc(5 * 1024 * 1024, 'a');
    const parts = [];
    for (const [i, body] of [first, Buffer.from('tail')].entries()) {
      const part = await client.send(
        new UploadPartCommand({ Bucket: bucket, Key: 'big.bin', UploadId, PartNumber: i + 1, Body: body }),
      );
      parts.push({ PartNumber: i + 1, ETag: part.ETag });
    }
    const done = await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'big.bin',
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'big.bin' }));
    expect(head.ContentLength).toBe(first.length + 4);
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: 'big.bin' }));
    const bytes = Buffer.from((await got.Body?.transformToByteArray()) ?? []);
    expect(bytes.subarray(-5).toString()).toBe('atail');
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'big.bin' }));
  });

  it('refuses a wrong secret with SignatureDoesNotMatch', async () => {
    const vars = await effectiveVars(p, p.sites[0]?.id);
    const wrong = clientOf({ ...vars, STORAGE_SECRET_KEY: `${vars.STORAGE_SECRET_KEY}x` });
    expect(await refusal(wrong.client.send(new ListObjectsV2Command({ Bucket: wrong.bucket })))).toBe(
      'SignatureDoesNotMatch',
    );
  });
});

describe('the AWS SDK v3 with a read key', () => {
  it('reads and lists, and every write is AccessDenied', async () => {
    await readWrite.client.send(
      new PutObjectCommand({ Bucket: readWrite.bucket, Key: 'kept.txt', Body: 'kept' }),
    );
    const { client, bucket } = read;
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: 'kept.txt' }));
    expect(await got.Body?.transformToString()).toBe('kept');
    expect((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).KeyCount).toBe(1);

    const stream = Readable.from([Buffer.from('no')]);
    const writes = [
      () => client.send(new PutObjectCommand({ Bucket: bucket, Key: 'x.txt', Body: 'no' })),
      () =>
        client.send(new PutObjectCommand({ Bucket: bucket, Key: 'y.txt', Body: stream, ContentLength: 2 })),
      () =>
        client.send(
          new CopyObjectCommand({ Bucket: bucket, Key: 'copy.txt', CopySource: `${bucket}/kept.txt` }),
        ),
      () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'kept.txt' })),
      () => client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'big.bin' })),
    ];
    for (const write of writes) expect(await refusal(write())).toBe('AccessDenied');
    const many = await client.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: 'kept.txt' }] } }),
    );
    expect(many.Errors?.map((e) => [e.Key, e.Code])).toEqual([['kept.txt', 'AccessDenied']]);
    expect(many.Deleted ?? []).toEqual([]);
    expect((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).KeyCount).toBe(1);
  });
});

describe('a key rotated at once (a leaked one)', () => {
  // docs/contract.md §14: `?immediate=true` refuses the old key at once; a graceful rotate keeps
  // it until the new one is live (rotation-graceful.test.ts).
  it('answers InvalidAccessKeyId, the code apps are told to retry on, and the new key works', async () => {
    const before = readWrite;
    const bucketId = p.buckets[0]?.id;
    const rotated = await p.as.post(
      `/api/v1/projects/${p.project.id}/sites/${p.sites[0]?.id}/connections/bucket/${bucketId}/rotate?immediate=true`,
    );
    expect(rotated.status, rotated.text).toBeLessThan(300);
    expect(await refusal(before.client.send(new ListObjectsV2Command({ Bucket: before.bucket })))).toBe(
      'InvalidAccessKeyId',
    );
    const after = clientOf(await effectiveVars(p, p.sites[0]?.id));
    expect((await after.client.send(new ListObjectsV2Command({ Bucket: after.bucket }))).KeyCount).toBe(1);
  });
});
