/** What the S3 stand-in's object and multipart answers share: the XML namespace and writer, and request metadata. */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** S3's XML namespace. */
export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** Writes one of S3's XML answers. */
export const xml = (
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
) =>
  void res
    .writeHead(status, { 'content-type': 'application/xml', ...headers })
    .end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);

/** The user metadata (`x-amz-meta-*`) of a request. */
export function userMetadata(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (name.startsWith('x-amz-meta-') && typeof value === 'string') out[name] = value;
  return out;
}

/** A request's content type, S3's default when none is sent. */
export const contentType = (headers: IncomingHttpHeaders) =>
  String(headers['content-type'] ?? 'binary/octet-stream');
