/**
 * S3's additional checksums, as AWS documents them ("Checking object integrity in Amazon S3"):
 * CRC-32, CRC-32C, CRC-64/NVME, SHA-1 and SHA-256 of an object or a part, sent as
 * `x-amz-checksum-<algorithm>` headers, aws-chunked trailers or presigned query parameters and
 * verified before anything is stored; a multipart upload's algorithm chosen by
 * `x-amz-checksum-algorithm` and combined into a full-object or composite (`<digest>-<parts>`)
 * checksum on completion.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { AwsFault } from './iam-actions';

/** A verified checksum of an object, as S3 keeps and returns it. */
export interface Checksum {
  algorithm: string;
  value: string;
  /** How a multipart object's checksum was made; a single PUT's is FULL_OBJECT. */
  type?: 'COMPOSITE' | 'FULL_OBJECT';
}

const table = (poly: number) =>
  Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    return c >>> 0;
  });
const CRC32C_TABLE = table(0x82f63b78);

/** CRC-32C (Castagnoli), which node:zlib lacks. */
function crc32c(data: Buffer): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++)
    crc = (CRC32C_TABLE[(crc ^ (data[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** CRC-64/NVME's reflected polynomial 0x9a6c9329ac4bc9b5, kept as two 32-bit halves for speed. */
const CRC64_TABLE = (() => {
  const hi = new Uint32Array(256);
  const lo = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let h = 0;
    let l = n;
    for (let bit = 0; bit < 8; bit++) {
      const carry = l & 1;
      l = ((l >>> 1) | ((h & 1) << 31)) >>> 0;
      h >>>= 1;
      if (carry) {
        h = (h ^ 0x9a6c9329) >>> 0;
        l = (l ^ 0xac4bc9b5) >>> 0;
      }
    }
    hi[n] = h;
    lo[n] = l;
  }
  return { hi, lo };
})();

/** CRC-64/NVME, S3's default full-object checksum, big-endian. */
function crc64nvme(data: Buffer): Buffer {
  let hi = 0xffffffff;
  let lo = 0xffffffff;
  for (let at = 0; at < data.length; at++) {
    const i = (lo ^ (data[at] as number)) & 0xff;
    lo = (((lo >>> 8) | (hi << 24)) ^ (CRC64_TABLE.lo[i] as number)) >>> 0;
    hi = ((hi >>> 8) ^ (CRC64_TABLE.hi[i] as number)) >>> 0;
  }
  const out = Buffer.alloc(8);
  out.writeUInt32BE((hi ^ 0xffffffff) >>> 0, 0);
  out.writeUInt32BE((lo ^ 0xffffffff) >>> 0, 4);
  return out;
}

const uint32 = (n: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n >>> 0);
  return out;
};

/** The algorithms S3 verifies, by their lower-case name, giving the raw digest of `data`. */
const DIGESTS: Record<string, (data: Buffer) => Buffer> = {
  crc32: (data) => uint32(crc32(data)),
  crc32c: (data) => uint32(crc32c(data)),
  crc64nvme,
  sha1: (data) => createHash('sha1').update(data).digest(),
  sha256: (data) => createHash('sha256').update(data).digest(),
};

/** The base64 `algorithm` checksum of `data`, as S3 sends it. */
export function checksumOf(algorithm: string, data: Buffer): string {
  const digest = DIGESTS[algorithm];
  if (!digest) throw unsupported();
  return digest(data).toString('base64');
}

const unsupported = () =>
  new AwsFault(
    400,
    'InvalidRequest',
    'Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]',
  );

/** A request's `x-amz-checksum-algorithm` (a name such as CRC32), lower-cased, or undefined. */
export function checksumAlgorithm(headers: Record<string, unknown>): string | undefined {
  const named = headers['x-amz-checksum-algorithm'];
  if (typeof named !== 'string') return undefined;
  const algorithm = named.toLowerCase();
  if (!(algorithm in DIGESTS)) throw unsupported();
  return algorithm;
}

/** A multipart upload's checksum type: what the request asked for, else the algorithm's default. */
export function multipartChecksumType(
  algorithm: string,
  headers: Record<string, unknown>,
): 'COMPOSITE' | 'FULL_OBJECT' {
  const asked = String(headers['x-amz-checksum-type'] ?? '').toUpperCase();
  const crc = algorithm.startsWith('crc');
  if (asked === 'FULL_OBJECT' && !crc)
    throw new AwsFault(
      400,
      'InvalidRequest',
      `The FULL_OBJECT checksum type is not supported for ${algorithm.toUpperCase()}.`,
    );
  if (asked === 'COMPOSITE' && algorithm === 'crc64nvme')
    throw new AwsFault(400, 'InvalidRequest', 'The COMPOSITE checksum type is not supported for CRC64NVME.');
  if (asked === 'FULL_OBJECT' || asked === 'COMPOSITE') return asked;
  return algorithm === 'crc64nvme' ? 'FULL_OBJECT' : 'COMPOSITE';
}

/** A completed multipart object's checksum: of the whole object, or of its parts' digests plus `-<parts>`. */
export function multipartChecksum(
  algorithm: string,
  type: 'COMPOSITE' | 'FULL_OBJECT',
  partChecksums: string[],
  data: Buffer,
): Checksum {
  if (type === 'FULL_OBJECT') return { algorithm, value: checksumOf(algorithm, data), type };
  const joined = Buffer.concat(partChecksums.map((c) => Buffer.from(c, 'base64')));
  return { algorithm, value: `${checksumOf(algorithm, joined)}-${partChecksums.length}`, type };
}

/**
 * Verifies every `x-amz-checksum-*` value in `given` (headers, trailers or presigned query
 * parameters) and a `content-md5` against `data`, as S3 does before storing anything; returns
 * the checksum to keep, if any.
 */
export function verifyChecksums(data: Buffer, given: Record<string, unknown>): Checksum | undefined {
  let kept: Checksum | undefined;
  const md5 = given['content-md5'];
  if (typeof md5 === 'string' && createHash('md5').update(data).digest('base64') !== md5)
    throw new AwsFault(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
  checksumAlgorithm(given);
  for (const [name, value] of Object.entries(given)) {
    const algorithm = /^x-amz-checksum-([a-z0-9]+)$/.exec(name)?.[1];
    // x-amz-checksum-algorithm, -type and -mode are settings, not digests.
    if (!algorithm || ['algorithm', 'type', 'mode'].includes(algorithm) || typeof value !== 'string')
      continue;
    if (checksumOf(algorithm, data) !== value)
      throw new AwsFault(
        400,
        'BadDigest',
        `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
      );
    kept = { algorithm, value };
  }
  return kept;
}
