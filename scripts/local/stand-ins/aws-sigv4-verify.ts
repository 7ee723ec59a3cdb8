/**
 * Verifies AWS Signature Version 4 `Authorization` headers with the `aws4` package: an signer
 * written independently of aws4fetch (which signs on the Worker side), so every stand-in
 * request also cross-checks the two implementations.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import aws4 from 'aws4';

/** The parts of a SigV4 Authorization header. */
export interface SigV4Auth {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses `AWS4-HMAC-SHA256 Credential=.../date/region/service/aws4_request, SignedHeaders=..., Signature=...`. */
export function parseAuthorization(header: string | undefined): SigV4Auth | null {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header ?? '',
    );
  if (!m) return null;
  const [, accessKeyId, date, region, service, signed, signature] = m as unknown as string[];
  return {
    accessKeyId: accessKeyId as string,
    date: date as string,
    region: region as string,
    service: service as string,
    signedHeaders: (signed as string).split(';'),
    signature: signature as string,
  };
}

/** Whether the request carries a valid signature by `secretAccessKey` made within 15 minutes. */
export function verifySigV4(
  req: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  auth: SigV4Auth,
  secretAccessKey: string,
): boolean {
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const when = Date.parse(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  if (Number.isNaN(when) || Math.abs(Date.now() - when) > 15 * 60_000 || !amzDate.startsWith(auth.date))
    return false;
  const headers: Record<string, string> = {};
  for (const name of auth.signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return false;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // aws4 adds these when absent; ignore the ones the client did not sign.
  const ignore: Record<string, boolean> = {};
  for (const name of ['content-type', 'content-length', 'x-amz-content-sha256', 'x-amz-date']) {
    if (!auth.signedHeaders.includes(name)) ignore[name] = true;
  }
  // `extraHeadersToIgnore` is an aws4 option its type definitions leave out.
  const request: aws4.Request & { extraHeadersToIgnore: Record<string, boolean> } = {
    host: headers.host,
    method: req.method,
    path: req.url,
    headers,
    body: req.body.length > 0 ? req.body : undefined,
    service: auth.service,
    region: auth.region,
    extraHeadersToIgnore: ignore,
  };
  const signed = aws4.sign(request, { accessKeyId: auth.accessKeyId, secretAccessKey });
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers?.Authorization ?? ''))?.[1] ?? '';
  return expected.length === 64 && timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature));
}
