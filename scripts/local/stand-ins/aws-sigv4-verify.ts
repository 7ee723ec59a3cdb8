/**
 * Verifies AWS Signature Version 4, in an `Authorization` header or in a presigned URL's query
 * (`X-Amz-Signature`, `X-Amz-Expires`), with the `aws4` package: a signer written independently
 * of aws4fetch (which signs on the Worker side), so every stand-in request also cross-checks the
 * two implementations.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import aws4 from 'aws4';

/** The parts of a SigV4 signature, from the Authorization header or a presigned URL. */
export interface SigV4Auth {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
  /** A presigned URL's `X-Amz-Date` and `X-Amz-Expires` (seconds); absent for a signed header. */
  presigned?: { amzDate: string; expiresSeconds: number };
}

/** S3's longest presigned URL lifetime, seven days. */
const MAX_PRESIGNED_SECONDS = 604_800;
/** How far a header signature's time may be from now. */
const HEADER_SKEW_MS = 15 * 60_000;

const CREDENTIAL = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/;

function credentialParts(credential: string) {
  const m = CREDENTIAL.exec(credential);
  if (!m) return null;
  const [, accessKeyId = '', date = '', region = '', service = ''] = m;
  return { accessKeyId, date, region, service };
}

/** Parses `AWS4-HMAC-SHA256 Credential=.../date/region/service/aws4_request, SignedHeaders=..., Signature=...`. */
export function parseAuthorization(header: string | undefined): SigV4Auth | null {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header ?? '',
    );
  const credential = credentialParts(m?.[1] ?? '');
  if (!m || !credential) return null;
  return { ...credential, signedHeaders: (m[2] ?? '').split(';'), signature: m[3] ?? '' };
}

/** Parses a presigned URL's `X-Amz-*` query parameters, or null when the URL is not presigned. */
export function parsePresignedQuery(url: URL): SigV4Auth | null {
  const q = url.searchParams;
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return null;
  const credential = credentialParts(q.get('X-Amz-Credential') ?? '');
  const signature = q.get('X-Amz-Signature') ?? '';
  const expiresSeconds = Number(q.get('X-Amz-Expires'));
  if (!credential || !/^[0-9a-f]{64}$/.test(signature) || !Number.isInteger(expiresSeconds)) return null;
  return {
    ...credential,
    signedHeaders: (q.get('X-Amz-SignedHeaders') ?? '').split(';'),
    signature,
    presigned: { amzDate: q.get('X-Amz-Date') ?? '', expiresSeconds },
  };
}

const parseAmzDate = (amzDate: string) =>
  Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));

/** Why a presigned URL is refused before its signature is checked (S3's wording), or null. */
export function presignedRefusal(auth: SigV4Auth, now = Date.now()): string | null {
  if (!auth.presigned) return null;
  const { amzDate, expiresSeconds } = auth.presigned;
  if (expiresSeconds < 1 || expiresSeconds > MAX_PRESIGNED_SECONDS)
    return 'X-Amz-Expires must be less than a week (in seconds) that is 604800';
  const when = parseAmzDate(amzDate);
  if (Number.isNaN(when)) return 'X-Amz-Date must be in the ISO8601 Long Format';
  if (now > when + expiresSeconds * 1000) return 'Request has expired';
  return null;
}

/**
 * Whether the request carries a valid signature by `secretAccessKey`: a header signature made
 * within 15 minutes, or a presigned URL (its expiry is checked by `presignedRefusal`).
 */
export function verifySigV4(
  req: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  auth: SigV4Auth,
  secretAccessKey: string,
): boolean {
  const amzDate = auth.presigned?.amzDate ?? String(req.headers['x-amz-date'] ?? '');
  const when = parseAmzDate(amzDate);
  if (Number.isNaN(when) || !amzDate.startsWith(auth.date)) return false;
  if (!auth.presigned && Math.abs(Date.now() - when) > HEADER_SKEW_MS) return false;
  const headers: Record<string, string> = {};
  // Every header the client signed counts, `range` included (aws4 leaves some out unless told).
  const include: Record<string, boolean> = {};
  for (const name of auth.signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return false;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
    include[name] = true;
  }
  // aws4 adds these when absent; ignore the ones the client did not sign.
  const ignore: Record<string, boolean> = {};
  for (const name of ['content-type', 'content-length', 'x-amz-content-sha256', 'x-amz-date']) {
    if (!auth.signedHeaders.includes(name)) ignore[name] = true;
  }
  let path = req.url;
  if (auth.presigned) {
    const url = new URL(req.url, 'http://stand-in');
    url.searchParams.delete('X-Amz-Signature');
    path = `${url.pathname}${url.search}`;
  }
  // `extraHeadersToInclude` and `extraHeadersToIgnore` are aws4 options its type definitions leave out.
  const request: aws4.Request & {
    extraHeadersToInclude: Record<string, boolean>;
    extraHeadersToIgnore: Record<string, boolean>;
  } = {
    host: headers.host,
    method: req.method,
    path,
    headers,
    body: req.body.length > 0 && !auth.presigned ? req.body : undefined,
    service: auth.service,
    region: auth.region,
    signQuery: Boolean(auth.presigned),
    extraHeadersToInclude: include,
    extraHeadersToIgnore: ignore,
  };
  const signed = aws4.sign(request, { accessKeyId: auth.accessKeyId, secretAccessKey });
  const expected = auth.presigned
    ? (new URL(signed.path ?? '', 'http://stand-in').searchParams.get('X-Amz-Signature') ?? '')
    : (/Signature=([0-9a-f]{64})/.exec(String(signed.headers?.Authorization ?? ''))?.[1] ?? '');
  return expected.length === 64 && timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature));
}

/** The query parameters that carry a presigned URL's signature itself. */
const PRESIGN_PARAMETERS = new Set(
  ['algorithm', 'credential', 'date', 'expires', 'signedheaders', 'signature', 'security-token'].map(
    (p) => `x-amz-${p}`,
  ),
);

/** A presigned URL's other `x-amz-*` query parameters, which S3 reads as the headers they stand for. */
export function hoistedHeaders(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    const lower = name.toLowerCase();
    if (lower.startsWith('x-amz-') && !PRESIGN_PARAMETERS.has(lower)) out[lower] = value;
  }
  return out;
}
