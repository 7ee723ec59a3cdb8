/**
 * S3's aws-chunked payloads and checksums, as AWS documents them ("Signature calculations for
 * the Authorization header: transferring payload in multiple chunks" and "Checking object
 * integrity"): a body sent as `<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` chunks, the
 * last empty, then optional trailing headers (a checksum, verified by s3-checksums.ts, and with a
 * signed payload the trailer's own signature). Each signed chunk chains its signature to the one before, starting
 * from the request's, so a reordered, cut or altered chunk is refused.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AwsFault } from './iam-actions';

const EMPTY_SHA256 = createHash('sha256').digest('hex');

/** What verifies chunk signatures: the request's signing key, date, scope and its own signature. */
export interface ChunkSigning {
  key: Buffer;
  amzDate: string;
  scope: string;
  seedSignature: string;
}

/** The SigV4 signing key for `secret` on `date` (yyyymmdd) in `region` for `service`. */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  let key: Buffer = Buffer.from(`AWS4${secret}`);
  for (const part of [date, region, service, 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  return key;
}

const hmacHex = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');
const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const sameHex = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The signature of one chunk, chained to `previous`. */
export function chunkSignature(signing: ChunkSigning, previous: string, data: Buffer): string {
  const text = [
    'AWS4-HMAC-SHA256-PAYLOAD',
    signing.amzDate,
    signing.scope,
    previous,
    EMPTY_SHA256,
    sha256Hex(data),
  ];
  return hmacHex(signing.key, text.join('\n'));
}

/** The signature of the trailing headers, chained to the last chunk's. */
export function trailerSignature(signing: ChunkSigning, previous: string, trailer: string): string {
  return hmacHex(
    signing.key,
    ['AWS4-HMAC-SHA256-TRAILER', signing.amzDate, signing.scope, previous, sha256Hex(trailer)].join('\n'),
  );
}

const incomplete = (why: string) =>
  new AwsFault(400, 'IncompleteBody', `The request body is malformed: ${why}`);
const badSignature = () =>
  new AwsFault(
    403,
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided.',
  );

/**
 * Decodes an aws-chunked body. With `signing`, every chunk (and the trailer, when one is sent)
 * must carry its chained signature; without, none may. Returns the data and the trailing headers.
 */
export function decodeAwsChunked(
  body: Buffer,
  signing: ChunkSigning | null,
): { data: Buffer; trailers: Record<string, string> } {
  const parts: Buffer[] = [];
  let at = 0;
  let previous = signing?.seedSignature ?? '';
  const line = (): string => {
    const end = body.indexOf('\r\n', at);
    if (end < 0) throw incomplete('a line without its CRLF');
    const text = body.subarray(at, end).toString('latin1');
    at = end + 2;
    return text;
  };
  for (;;) {
    const [sizeHex = '', ...extensions] = line().split(';');
    if (!/^[0-9a-fA-F]{1,16}$/.test(sizeHex)) throw incomplete(`chunk size ${JSON.stringify(sizeHex)}`);
    const size = Number.parseInt(sizeHex, 16);
    const given = extensions.find((e) => e.startsWith('chunk-signature='))?.slice('chunk-signature='.length);
    if (at + size > body.length) throw incomplete('a chunk longer than the body');
    const data = body.subarray(at, at + size);
    at += size;
    if (signing) {
      if (!given || !sameHex(chunkSignature(signing, previous, data), given)) throw badSignature();
      previous = given;
    } else if (given) throw incomplete('a chunk signature on an unsigned payload');
    if (size === 0) break;
    if (line() !== '') throw incomplete('chunk data longer than its size');
    parts.push(data);
  }
  const trailers: Record<string, string> = {};
  let trailerText = '';
  let trailerSig: string | undefined;
  while (at < body.length) {
    const text = line();
    if (text === '') break;
    const colon = text.indexOf(':');
    if (colon < 1) throw incomplete(`trailer ${JSON.stringify(text)}`);
    const name = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (name === 'x-amz-trailer-signature') trailerSig = value;
    else {
      trailers[name] = value;
      trailerText += `${name}:${value}\n`;
    }
  }
  if (
    signing &&
    trailerText &&
    !(trailerSig && sameHex(trailerSignature(signing, previous, trailerText), trailerSig))
  )
    throw badSignature();
  return { data: Buffer.concat(parts), trailers };
}

/** Whether `declared` (an x-amz-content-sha256 value) admits `body`; streaming values are checked chunk by chunk. */
export function payloadHashMatches(declared: string | undefined, body: Buffer): boolean {
  if (declared === undefined || declared === 'UNSIGNED-PAYLOAD' || declared.startsWith('STREAMING-'))
    return true;
  return sameHex(declared.toLowerCase(), sha256Hex(body));
}
