/**
 * The S3 stand-in's multipart uploads: create (with an optional `x-amz-checksum-algorithm` and
 * `x-amz-checksum-type`), upload part (each part's checksum verified and kept), complete (parts
 * in order, 5 MiB but the last, listed checksums matched, the object's checksum combined as S3
 * does) and abort. Answers are S3's XML shapes and error codes, as the SDKs parse them.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { XMLParser } from 'fast-xml-parser';
import { AwsFault, el } from './iam-actions';
import { checksumAlgorithm, checksumOf, multipartChecksum, multipartChecksumType } from './s3-checksums';
import { contentType, S3_NS, userMetadata, xml } from './s3-common';
import type { ObjectRequest } from './s3-objects';

/** S3's smallest part but the last (5 MiB). */
const MIN_PART = 5 * 1024 * 1024;

/** A multipart upload under way. */
export interface Upload {
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  initiated: string;
  /** The checksum algorithm and type chosen at creation, if any. */
  checksum?: { algorithm: string; type: 'COMPOSITE' | 'FULL_OBJECT' };
  parts: Record<string, { data: string; etag: string; size: number; checksum?: string }>;
}

const md5 = (data: Buffer) => createHash('md5').update(data).digest();
const noSuchUpload = () =>
  new AwsFault(404, 'NoSuchUpload', 'The specified multipart upload does not exist.');
const parser = new XMLParser({ isArray: (name) => name === 'Part', parseTagValue: false });
/** The XML element of a checksum algorithm, e.g. `ChecksumCRC32`. */
const checksumElement = (algorithm: string) => `Checksum${algorithm.toUpperCase()}`;
/** Answers one multipart request, or returns false when `r.op` is not one. */
export function multipartOperation(r: ObjectRequest, res: ServerResponse, now: string): boolean {
  const { op, bucket } = r;
  const key = op.key as string;
  switch (op.name) {
    case 'CreateMultipartUpload': {
      const uploadId = randomBytes(24).toString('base64url');
      const algorithm = checksumAlgorithm(r.headers);
      const checksum = algorithm
        ? { algorithm, type: multipartChecksumType(algorithm, r.headers) }
        : undefined;
      bucket.uploads ??= {};
      bucket.uploads[uploadId] = {
        key,
        contentType: contentType(r.headers),
        metadata: userMetadata(r.headers),
        initiated: now,
        ...(checksum ? { checksum } : {}),
        parts: {},
      };
      r.save();
      const headers: Record<string, string> = checksum
        ? {
            'x-amz-checksum-algorithm': checksum.algorithm.toUpperCase(),
            'x-amz-checksum-type': checksum.type,
          }
        : {};
      xml(
        res,
        200,
        `<InitiateMultipartUploadResult xmlns="${S3_NS}">${el('Bucket', op.bucket as string)}${el('Key', key)}${el('UploadId', uploadId)}</InitiateMultipartUploadResult>`,
        headers,
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
      const algorithm = upload.checksum?.algorithm;
      if (algorithm && r.checksum && r.checksum.algorithm !== algorithm)
        throw new AwsFault(
          400,
          'InvalidRequest',
          `Checksum Type mismatch occurred, expected checksum Type: ${algorithm}, actual checksum Type: ${r.checksum.algorithm}`,
        );
      // The part's checksum was verified against its bytes on arrival; one the client left out is made here.
      const checksum = algorithm ? (r.checksum?.value ?? checksumOf(algorithm, r.body)) : undefined;
      const etag = `"${md5(r.body).toString('hex')}"`;
      upload.parts[String(number)] = {
        data: r.body.toString('base64'),
        etag,
        size: r.body.length,
        ...(checksum ? { checksum } : {}),
      };
      r.save();
      res
        .writeHead(200, {
          etag,
          ...(algorithm && checksum ? { [`x-amz-checksum-${algorithm}`]: checksum } : {}),
        })
        .end();
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
    default:
      return false;
  }
}

function completeUpload(r: ObjectRequest, res: ServerResponse, now: string): void {
  const uploadId = r.url.searchParams.get('uploadId') ?? '';
  const upload = r.bucket.uploads?.[uploadId];
  if (!upload || upload.key !== r.op.key) throw noSuchUpload();
  const listed = (
    parser.parse(r.body.toString()) as { CompleteMultipartUpload?: { Part?: Record<string, unknown>[] } }
  ).CompleteMultipartUpload?.Part;
  if (!Array.isArray(listed) || listed.length === 0)
    throw new AwsFault(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
    );
  const invalidPart = () =>
    new AwsFault(400, 'InvalidPart', 'One or more of the specified parts could not be found.');
  const chosen = listed.map((p) => {
    const part = upload.parts[String(p.PartNumber)];
    if (!part || part.etag.replace(/"/g, '') !== String(p.ETag).replace(/"/g, '')) throw invalidPart();
    // A listed part checksum must be the one its upload was verified with.
    for (const [name, value] of Object.entries(p))
      if (name.startsWith('Checksum') && name !== 'ChecksumType') {
        if (
          !upload.checksum ||
          name !== checksumElement(upload.checksum.algorithm) ||
          value !== part.checksum
        )
          throw invalidPart();
      }
    return { number: Number(p.PartNumber), ...part };
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
  const checksum = upload.checksum
    ? multipartChecksum(
        upload.checksum.algorithm,
        upload.checksum.type,
        chosen.map((p) => p.checksum ?? ''),
        data,
      )
    : undefined;
  r.bucket.objects[upload.key] = {
    data: data.toString('base64'),
    etag,
    lastModified: now,
    contentType: upload.contentType,
    metadata: upload.metadata,
    ...(checksum ? { checksum } : {}),
  };
  delete r.bucket.uploads?.[uploadId];
  r.save();
  const bucketName = r.op.bucket as string;
  const sum = checksum
    ? `${el(checksumElement(checksum.algorithm), checksum.value)}${el('ChecksumType', checksum.type ?? 'COMPOSITE')}`
    : '';
  xml(
    res,
    200,
    `<CompleteMultipartUploadResult xmlns="${S3_NS}">${el('Location', `/${bucketName}/${upload.key}`)}${el('Bucket', bucketName)}${el('Key', upload.key)}${el('ETag', etag)}${sum}</CompleteMultipartUploadResult>`,
  );
}
