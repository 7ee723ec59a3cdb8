/**
 * The AWS SDK v3's transfer helpers against the local storage, on their default settings, with
 * the keys a site is handed: `@aws-sdk/lib-storage` Upload (multipart, CRC32 part checksums in
 * aws-chunked trailers) from a Buffer and from a stream of unknown length, a ranged GetObject
 * (its signed `range` header), and `@aws-sdk/s3-request-presigner` GET and PUT URLs through
 * plain `fetch`; every byte checked by SHA-256. Regression: Upload failed with "Checksum
 * algorithm algorithm is not supported here", a ranged GET with SignatureDoesNotMatch, and
 * presigned URLs with AccessDenied.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { connectSite, effectiveVars, type SeededProject, seedProject } from '../helpers/connections';

const MiB = 1024 * 1024;
/** 20 MiB that no two offsets of a part size share, so a misplaced part changes the digest. */
const BIG = Buffer.from(Array.from({ length: 20 * MiB }, (_, i) => (i * 7919 + (i >>> 20)) & 255));
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

let p: SeededProject;
type Site = { client: S3Client; bucket: string; vars: Record<string, string> };
let readWrite: Site;
let read: Site;

/** An S3 client on the SDK's defaults, built from a site's variables as the README tells apps to. */
function siteClient(
  vars: Record<string, string>,
  extra: Partial<{ requestChecksumCalculation: 'WHEN_REQUIRED' }> = {},
): Site {
  const client = new S3Client({
    endpoint: vars.STORAGE_ENDPOINT,
    region: vars.STORAGE_REGION,
    forcePathStyle: true,
    credentials: {
      accessKeyId: vars.STORAGE_ACCESS_KEY ?? '',
      secretAccessKey: vars.STORAGE_SECRET_KEY ?? '',
    },
    ...extra,
  });
  return { client, bucket: vars.STORAGE_BUCKET ?? '', vars };
}

/** The bytes of an object, read back whole. */
async function bytesOf(site: Site, key: string): Promise<Buffer> {
  const got = await site.client.send(new GetObjectCommand({ Bucket: site.bucket, Key: key }));
  return Buffer.from((await got.Body?.transformToByteArray()) ?? []);
}

/** The S3 error code a promise is refused with, or `accepted`. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3ServiceException) return err.name;
    throw err;
  }
  return 'accepted';
}

/** The `<Code>` of an S3 XML error answer. */
const codeOf = (xml: string) => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];

/** A stream of `data` in 1 MiB pieces that announces no length. */
const unknownLength = (data: Buffer) =>
  Readable.from(
    (function* () {
      for (let at = 0; at < data.length; at += MiB) yield data.subarray(at, at + MiB);
    })(),
  );

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
  readWrite = siteClient(await effectiveVars(p, p.sites[0]?.id));
  read = siteClient(await effectiveVars(p, p.sites[1]?.id));
});

describe('lib-storage Upload on default settings', () => {
  it('uploads 20 MiB from a Buffer in parts and reads back the same bytes', async () => {
    const { client, bucket } = readWrite;
    const done = await new Upload({
      client,
      params: { Bucket: bucket, Key: 'from-buffer.bin', Body: BIG },
    }).done();
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-4"$/);
    expect(sha256(await bytesOf(readWrite, 'from-buffer.bin'))).toBe(sha256(BIG));
  });

  it('uploads 20 MiB from a stream of unknown length and reads back the same bytes', async () => {
    const { client, bucket } = readWrite;
    const upload = new Upload({
      client,
      params: { Bucket: bucket, Key: 'from-stream.bin', Body: unknownLength(BIG) },
    });
    const done = await upload.done();
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-\d+"$/);
    expect(sha256(await bytesOf(readWrite, 'from-stream.bin'))).toBe(sha256(BIG));
  });
});

describe('GetObject with Range', () => {
  it('answers 206 with Content-Range and exactly the bytes asked, for a span, an open end and a suffix', async () => {
    const { client, bucket } = readWrite;
    const cases: Array<[string, number, number]> = [
      ['bytes=5242870-5242889', 5242870, 5242889],
      [`bytes=${BIG.length - 10}-`, BIG.length - 10, BIG.length - 1],
      ['bytes=-7', BIG.length - 7, BIG.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const got = await client.send(
        new GetObjectCommand({ Bucket: bucket, Key: 'from-buffer.bin', Range: range }),
      );
      expect(got.$metadata.httpStatusCode, range).toBe(206);
      expect(got.ContentRange).toBe(`bytes ${start}-${end}/${BIG.length}`);
      expect(got.ContentLength).toBe(end - start + 1);
      const bytes = Buffer.from((await got.Body?.transformToByteArray()) ?? []);
      expect(sha256(bytes)).toBe(sha256(BIG.subarray(start, end + 1)));
    }
    expect(
      await refusal(
        client.send(
          new GetObjectCommand({ Bucket: bucket, Key: 'from-buffer.bin', Range: `bytes=${BIG.length}-` }),
        ),
      ),
    ).toBe('InvalidRange');
  });
});

describe('presigned URLs through fetch', () => {
  it('a presigned GET returns the object; a tampered or expired one is refused', async () => {
    const { client, bucket } = readWrite;
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: 'from-buffer.bin' }), {
      expiresIn: 300,
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(BIG));

    const tampered = await fetch(url.replace('from-buffer.bin', 'from-stream.bin'));
    expect(tampered.status).toBe(403);
    expect(codeOf(await tampered.text())).toBe('SignatureDoesNotMatch');
    const expiredUrl = await getSignedUrl(
      client,
      new GetObjectCommand({ Bucket: bucket, Key: 'from-buffer.bin' }),
      {
        expiresIn: 60,
        signingDate: new Date(Date.now() - 3_600_000),
      },
    );
    const expired = await fetch(expiredUrl);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });

  it('a presigned PUT stores the body it is sent, checked against the checksum it was signed with', async () => {
    const body = BIG.subarray(0, 3 * MiB + 17);
    const { bucket } = readWrite;
    // A URL for any body: the presigning client computes checksums only where S3 requires one.
    const whenRequired = siteClient(readWrite.vars, { requestChecksumCalculation: 'WHEN_REQUIRED' });
    const url = await getSignedUrl(
      whenRequired.client,
      new PutObjectCommand({ Bucket: bucket, Key: 'presigned.bin' }),
      {
        expiresIn: 300,
      },
    );
    const put = await fetch(url, { method: 'PUT', body });
    expect(put.status, await put.text()).toBe(200);
    expect(sha256(await bytesOf(readWrite, 'presigned.bin'))).toBe(sha256(body));

    // On the SDK's defaults a URL signed without a body carries the CRC32 of nothing, which S3
    // checks against what arrives: any other body is BadDigest and nothing is stored.
    const defaults = await getSignedUrl(
      readWrite.client,
      new PutObjectCommand({ Bucket: bucket, Key: 'empty-sum.bin' }),
      {
        expiresIn: 300,
      },
    );
    expect(new URL(defaults).searchParams.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
    const mismatch = await fetch(defaults, { method: 'PUT', body: 'not empty' });
    expect(mismatch.status).toBe(400);
    expect(codeOf(await mismatch.text())).toBe('BadDigest');
    expect(
      await refusal(readWrite.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'empty-sum.bin' }))),
    ).toBe('NoSuchKey');
  });
});

describe('a read-level key', () => {
  it('reads with Range and presigned GET, and is refused every write: PUT, multipart Upload, presigned PUT, DELETE', async () => {
    const { client, bucket } = read;
    const ranged = await client.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'from-buffer.bin', Range: 'bytes=0-9' }),
    );
    expect(Buffer.from((await ranged.Body?.transformToByteArray()) ?? [])).toEqual(BIG.subarray(0, 10));
    const get = await fetch(
      await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: 'presigned.bin' })),
    );
    expect(get.status).toBe(200);

    expect(
      await refusal(client.send(new PutObjectCommand({ Bucket: bucket, Key: 'x.bin', Body: 'no' }))),
    ).toBe('AccessDenied');
    expect(
      await refusal(
        new Upload({
          client,
          params: { Bucket: bucket, Key: 'big.bin', Body: BIG.subarray(0, 11 * MiB) },
        }).done(),
      ),
    ).toBe('AccessDenied');
    const whenRequired = siteClient(read.vars, { requestChecksumCalculation: 'WHEN_REQUIRED' });
    const putUrl = await getSignedUrl(
      whenRequired.client,
      new PutObjectCommand({ Bucket: bucket, Key: 'presigned.bin' }),
    );
    const put = await fetch(putUrl, { method: 'PUT', body: 'overwrite' });
    expect(put.status).toBe(403);
    expect(codeOf(await put.text())).toBe('AccessDenied');
    const deleteUrl = await getSignedUrl(
      client,
      new DeleteObjectCommand({ Bucket: bucket, Key: 'presigned.bin' }),
    );
    expect(codeOf(await (await fetch(deleteUrl, { method: 'DELETE' })).text())).toBe('AccessDenied');
    expect(
      await refusal(client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'from-buffer.bin' }))),
    ).toBe('AccessDenied');

    // Nothing moved: the objects are the read-write site's bytes.
    expect(sha256(await bytesOf(readWrite, 'presigned.bin'))).toBe(sha256(BIG.subarray(0, 3 * MiB + 17)));
    expect(sha256(await bytesOf(readWrite, 'from-buffer.bin'))).toBe(sha256(BIG));
    expect(
      await refusal(readWrite.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'big.bin' }))),
    ).toBe('NoSuchKey');
  });
});
