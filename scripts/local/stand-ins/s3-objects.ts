/**
 * The object side of the S3 stand-in: objects with their size, ETag, last-modified time, type,
 * user metadata and checksum; ranged reads (206 with Content-Range); copies; multipart uploads
 * (s3-multipart.ts); multi-object deletes. Answers are S3's XML shapes and error codes, as the
 * SDKs parse them.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { XMLParser } from 'fast-xml-parser';
import { AwsFault, el } from './iam-actions';
import type { Checksum } from './s3-checksums';
import { contentType, S3_NS, userMetadata, xml } from './s3-common';
import { multipartOperation, type Upload } from './s3-multipart';
import type { S3Operation } from './s3-operations';

/** One stored object. */
export interface StoredObject {
  /** The bytes, base64. */
  data: string;
  etag: string;
  lastModified: string;
  contentType: string;
  metadata: Record<string, string>;
  checksum?: Checksum;
}
/** One bucket. */
export interface Bucket {
  region: string;
  objects: Record<string, StoredObject>;
  settings: Record<string, string>;
  uploads?: Record<string, Upload>;
}

/** One object request with its decoded body. */
export interface ObjectRequest {
  op: S3Operation;
  bucket: Bucket;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  checksum?: Checksum;
  /** Whether the caller may do `action` on `resource` (copies and multi-deletes check more than one). */
  allowed(action: string, resource: string): Promise<boolean>;
  /** The bucket named `name`, for a copy's source. */
  bucketNamed(name: string): Bucket | undefined;
  save(): void;
}

const md5 = (data: Buffer) => createHash('md5').update(data).digest();
const noSuchKey = () => new AwsFault(404, 'NoSuchKey', 'The specified key does not exist.');
const parser = new XMLParser({ isArray: (name) => name === 'Object', parseTagValue: false });

/**
 * The byte range a `Range: bytes=…` header asks of `size` bytes, or null for the whole object
 * (no header, or one S3 ignores: several ranges, or not a byte range). A start past the end is
 * 416 InvalidRange.
 */
export function byteRange(header: unknown, size: number): { start: number; end: number } | null {
  const m = typeof header === 'string' ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  const unsatisfiable = () => new AwsFault(416, 'InvalidRange', 'The requested range is not satisfiable');
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw unsatisfiable();
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? Number.POSITIVE_INFINITY : Number(m[2]);
  if (last < start) return null;
  if (start >= size) throw unsatisfiable();
  return { start, end: Math.min(last, size - 1) };
}

function objectHeaders(o: StoredObject, withChecksum: boolean): Record<string, string> {
  return {
    etag: o.etag,
    'last-modified': new Date(o.lastModified).toUTCString(),
    'content-type': o.contentType,
    'content-length': String(Buffer.from(o.data, 'base64').length),
    'accept-ranges': 'bytes',
    ...o.metadata,
    ...(withChecksum && o.checksum
      ? {
          [`x-amz-checksum-${o.checksum.algorithm}`]: o.checksum.value,
          'x-amz-checksum-type': o.checksum.type ?? 'FULL_OBJECT',
        }
      : {}),
  };
}

/** Answers one object-level request, or returns false when `r.op` is not one. */
export async function objectOperation(r: ObjectRequest, res: ServerResponse): Promise<boolean> {
  const { op, bucket } = r;
  const key = op.key as string;
  const now = new Date().toISOString();
  switch (op.name) {
    case 'PutObject': {
      const object: StoredObject = {
        data: r.body.toString('base64'),
        etag: `"${md5(r.body).toString('hex')}"`,
        lastModified: now,
        contentType: contentType(r.headers),
        metadata: userMetadata(r.headers),
        ...(r.checksum ? { checksum: r.checksum } : {}),
      };
      bucket.objects[key] = object;
      r.save();
      const sum = r.checksum ? { [`x-amz-checksum-${r.checksum.algorithm}`]: r.checksum.value } : {};
      res.writeHead(200, { etag: object.etag, ...sum }).end();
      return true;
    }
    case 'GetObject':
    case 'HeadObject': {
      const object = bucket.objects[key];
      if (!object) throw noSuchKey();
      const data = Buffer.from(object.data, 'base64');
      const range = byteRange(r.headers.range, data.length);
      // A range's bytes have no checksum of their own: S3 sends the object's only with the whole.
      const headers = objectHeaders(object, !range && r.headers['x-amz-checksum-mode'] === 'ENABLED');
      if (range) {
        headers['content-range'] = `bytes ${range.start}-${range.end}/${data.length}`;
        headers['content-length'] = String(range.end - range.start + 1);
      }
      const body = range ? data.subarray(range.start, range.end + 1) : data;
      res.writeHead(range ? 206 : 200, headers).end(op.name === 'GetObject' ? body : undefined);
      return true;
    }
    case 'DeleteObject':
      delete bucket.objects[key];
      r.save();
      res.writeHead(204).end();
      return true;
    case 'CopyObject': {
      const source = decodeURIComponent(String(r.headers['x-amz-copy-source']).split('?')[0] ?? '').replace(
        /^\//,
        '',
      );
      const [sourceBucket = '', ...rest] = source.split('/');
      const sourceKey = rest.join('/');
      if (!(await r.allowed('s3:GetObject', `arn:aws:s3:::${sourceBucket}/${sourceKey}`)))
        throw new AwsFault(403, 'AccessDenied', 'Access Denied');
      const from = r.bucketNamed(sourceBucket);
      if (!from) throw new AwsFault(404, 'NoSuchBucket', 'The specified bucket does not exist');
      const original = from.objects[sourceKey];
      if (!original) throw noSuchKey();
      const replace = r.headers['x-amz-metadata-directive'] === 'REPLACE';
      const copy: StoredObject = {
        ...original,
        lastModified: now,
        ...(replace ? { contentType: contentType(r.headers), metadata: userMetadata(r.headers) } : {}),
      };
      bucket.objects[key] = copy;
      r.save();
      xml(
        res,
        200,
        `<CopyObjectResult>${el('LastModified', now)}${el('ETag', copy.etag)}</CopyObjectResult>`,
      );
      return true;
    }
    case 'DeleteObjects':
      await deleteObjects(r, res);
      return true;
    default:
      return multipartOperation(r, res, now);
  }
}

async function deleteObjects(r: ObjectRequest, res: ServerResponse): Promise<void> {
  const request = (parser.parse(r.body.toString()) as { Delete?: { Object?: unknown[]; Quiet?: string } })
    .Delete;
  const objects = request?.Object;
  if (!Array.isArray(objects) || objects.length === 0 || objects.length > 1000)
    throw new AwsFault(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
    );
  const quiet = request?.Quiet === 'true';
  let out = '';
  for (const o of objects) {
    const key = String((o as { Key?: unknown }).Key ?? '');
    // S3 authorises each key on its own and reports a refusal in the answer, not as the status.
    if (!(await r.allowed('s3:DeleteObject', `arn:aws:s3:::${r.op.bucket}/${key}`))) {
      out += `<Error>${el('Key', key)}${el('Code', 'AccessDenied')}${el('Message', 'Access Denied')}</Error>`;
      continue;
    }
    delete r.bucket.objects[key];
    if (!quiet) out += `<Deleted>${el('Key', key)}</Deleted>`;
  }
  r.save();
  xml(res, 200, `<DeleteResult xmlns="${S3_NS}">${out}</DeleteResult>`);
}
