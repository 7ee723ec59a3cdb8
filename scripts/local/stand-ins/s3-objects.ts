/**
 * The object side of the S3 stand-in: objects with their size, ETag, last-modified time, type,
 * user metadata and checksum; listings (v1 and v2, prefix, delimiter, pages); copies;
 * multipart uploads; multi-object deletes. Answers are S3's XML shapes and error codes, as
 * the SDKs parse them.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { XMLParser } from 'fast-xml-parser';
import type { Checksum } from './aws-chunked';
import { AwsFault, el } from './iam-actions';
import type { S3Operation } from './s3-operations';

/** S3's XML namespace. */
export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
/** S3's smallest part but the last (5 MiB). */
const MIN_PART = 5 * 1024 * 1024;

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
/** A multipart upload under way. */
interface Upload {
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  initiated: string;
  parts: Record<string, { data: string; etag: string; size: number }>;
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

const xml = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) =>
  void res
    .writeHead(status, { 'content-type': 'application/xml', ...headers })
    .end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
const md5 = (data: Buffer) => createHash('md5').update(data).digest();
const noSuchKey = () => new AwsFault(404, 'NoSuchKey', 'The specified key does not exist.');
const noSuchUpload = () =>
  new AwsFault(404, 'NoSuchUpload', 'The specified multipart upload does not exist.');
const parser = new XMLParser({
  isArray: (name) => name === 'Part' || name === 'Object',
  parseTagValue: false,
});

function userMetadata(headers: ObjectRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (name.startsWith('x-amz-meta-') && typeof value === 'string') out[name] = value;
  return out;
}
const contentType = (headers: ObjectRequest['headers']) =>
  String(headers['content-type'] ?? 'binary/octet-stream');

function objectHeaders(o: StoredObject, withChecksum: boolean): Record<string, string> {
  return {
    etag: o.etag,
    'last-modified': new Date(o.lastModified).toUTCString(),
    'content-type': o.contentType,
    'content-length': String(Buffer.from(o.data, 'base64').length),
    'accept-ranges': 'bytes',
    ...o.metadata,
    ...(withChecksum && o.checksum ? { [`x-amz-checksum-${o.checksum.algorithm}`]: o.checksum.value } : {}),
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
      const headers = objectHeaders(object, r.headers['x-amz-checksum-mode'] === 'ENABLED');
      res
        .writeHead(200, headers)
        .end(op.name === 'GetObject' ? Buffer.from(object.data, 'base64') : undefined);
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
    case 'CreateMultipartUpload': {
      const uploadId = randomBytes(24).toString('base64url');
      bucket.uploads ??= {};
      bucket.uploads[uploadId] = {
        key,
        contentType: contentType(r.headers),
        metadata: userMetadata(r.headers),
        initiated: now,
        parts: {},
      };
      r.save();
      xml(
        res,
        200,
        `<InitiateMultipartUploadResult xmlns="${S3_NS}">${el('Bucket', op.bucket as string)}${el('Key', key)}${el('UploadId', uploadId)}</InitiateMultipartUploadResult>`,
      );
      return true;
    }
    case 'UploadPart': {
      const upload = bucket.uploads?.[r.url.searchParams.get('uploadId') ?? ''];
      if (!upload || upload.key !== key) throw noSuchUpload();
      const number = Number(r.url.searchParams.get('partNumber'));
      if (!Number.isInteger(number) || number < 1 || number > 10_000)
        throw new AwsFault(
          400,
          'InvalidArgument',
          'Part number must be an integer between 1 and 10000, inclusive',
        );
      const etag = `"${md5(r.body).toString('hex')}"`;
      upload.parts[String(number)] = { data: r.body.toString('base64'), etag, size: r.body.length };
      r.save();
      res.writeHead(200, { etag }).end();
      return true;
    }
    case 'CompleteMultipartUpload':
      completeUpload(r, res, now);
      return true;
    case 'AbortMultipartUpload': {
      const uploadId = r.url.searchParams.get('uploadId') ?? '';
      if (!bucket.uploads?.[uploadId]) throw noSuchUpload();
      delete bucket.uploads[uploadId];
      r.save();
      res.writeHead(204).end();
      return true;
    }
    case 'DeleteObjects':
      await deleteObjects(r, res);
      return true;
    default:
      return false;
  }
}

function completeUpload(r: ObjectRequest, res: ServerResponse, now: string): void {
  const uploadId = r.url.searchParams.get('uploadId') ?? '';
  const upload = r.bucket.uploads?.[uploadId];
  if (!upload || upload.key !== r.op.key) throw noSuchUpload();
  const listed = (parser.parse(r.body.toString()) as { CompleteMultipartUpload?: { Part?: unknown[] } })
    .CompleteMultipartUpload?.Part;
  if (!Array.isArray(listed) || listed.length === 0)
    throw new AwsFault(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
    );
  const chosen = listed.map((p) => {
    const { PartNumber, ETag } = p as { PartNumber?: string; ETag?: string };
    const part = upload.parts[String(PartNumber)];
    if (!part || part.etag.replace(/"/g, '') !== String(ETag).replace(/"/g, ''))
      throw new AwsFault(400, 'InvalidPart', 'One or more of the specified parts could not be found.');
    return { number: Number(PartNumber), ...part };
  });
  if (chosen.some((p, i) => i > 0 && p.number <= (chosen[i - 1]?.number ?? 0)))
    throw new AwsFault(400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
  if (chosen.slice(0, -1).some((p) => p.size < MIN_PART))
    throw new AwsFault(
      400,
      'EntityTooSmall',
      'Your proposed upload is smaller than the minimum allowed object size.',
    );
  const data = Buffer.concat(chosen.map((p) => Buffer.from(p.data, 'base64')));
  const etagOfParts = md5(Buffer.concat(chosen.map((p) => Buffer.from(p.etag.replace(/"/g, ''), 'hex'))));
  const etag = `"${etagOfParts.toString('hex')}-${chosen.length}"`;
  r.bucket.objects[upload.key] = {
    data: data.toString('base64'),
    etag,
    lastModified: now,
    contentType: upload.contentType,
    metadata: upload.metadata,
  };
  delete r.bucket.uploads?.[uploadId];
  r.save();
  const bucketName = r.op.bucket as string;
  xml(
    res,
    200,
    `<CompleteMultipartUploadResult xmlns="${S3_NS}">${el('Location', `/${bucketName}/${upload.key}`)}${el('Bucket', bucketName)}${el('Key', upload.key)}${el('ETag', etag)}</CompleteMultipartUploadResult>`,
  );
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
