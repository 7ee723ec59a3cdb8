/**
 * The Worker's one error handler: every error a request raises becomes the body of its route
 * family (contract §2): management routes `{"error":{"code","message"}}`, OAuth routes under
 * /v1 `{"error":"<message>","code"?}`. A 4xx Hono raises itself keeps its status.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { pgCode } from './adapters/postgres-sql';
import type { AppEnv } from './app-env';
import { EnvironmentError } from './config';
import { ApiError, codeOfStatus } from './lib/errors';
import { newId } from './lib/ids';
import { log } from './lib/logger';
import { OAuthError } from './lib/oauth-error';
import { StandardOAuthError } from './lib/standard-oauth-error';

/** SQLSTATEs of text Postgres cannot store (a NUL character): the request's fault, whatever field carried it. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);
/** SQLSTATE too_many_connections: the server (Neon: the compute or its pooler) holds its limit. */
const TOO_MANY_CONNECTIONS = '53300';
/** Seconds a client is asked to wait when the metadata database cannot be used for now. */
const METADATA_RETRY_AFTER = 5;

/** `err` and the errors it wraps (drizzle wraps the driver's), outermost first. */
function* causes(err: unknown): Generator<unknown> {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++, e = (e as { cause?: unknown }).cause) yield e;
}

/** Whether `err`, or an error it wraps, is one of those. */
function isUnstorableText(err: unknown): boolean {
  for (const e of causes(err)) if (UNSTORABLE_TEXT.has(pgCode(e) ?? '')) return true;
  return false;
}

/** Whether `err`, or an error it wraps, is PostgreSQL refusing a connection past its limit (53300). */
export function isAtConnectionLimit(err: unknown): boolean {
  for (const e of causes(err)) if (pgCode(e) === TOO_MANY_CONNECTIONS) return true;
  return false;
}

/**
 * Whether `err` says the metadata database could not be reached (as opposed to a statement it
 * refused): the HTTP driver's failed fetch, a WebSocket that never opened or closed under a
 * query, a server that is starting or shutting down (SQLSTATE 57P0x, 08xxx).
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  for (const e of causes(err)) {
    const code = pgCode(e) ?? '';
    if (/^(08|57P0)/.test(code)) return true;
    const message = e instanceof Error ? e.message : '';
    if (
      /error connecting to database|fetch failed|connection terminated|econnrefused|websocket|network connection lost|server has gone away/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

/**
 * `thrown` as an Error for the error handler, which Hono calls only with Errors. The WebSocket
 * driver rejects with the socket's ErrorEvent ("Network connection lost.") when the metadata
 * database cannot be reached.
 */
export function asError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  const message = (thrown as { message?: unknown } | null)?.message;
  return new Error(typeof message === 'string' ? message : String(thrown), { cause: thrown });
}

/** What the error handler answers: a status, a JSON body, and headers to add (Retry-After). */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: unknown;
  headers: Record<string, string>;
}

const answer = (
  status: ContentfulStatusCode,
  body: unknown,
  headers: Record<string, string> = {},
): ErrorAnswer => ({
  status,
  body,
  headers,
});

/**
 * The answer to `err` raised by a request for `path`, in the shape of the path's route family.
 * `requestId` names an unexpected failure in its body. Needs no framework (the apps' `onError` answers with it).
 */
export function errorAnswer(err: Error, path: string, requestId: string = newId()): ErrorAnswer {
  const oauth = path.startsWith('/v1/');
  if (err instanceof StandardOAuthError) {
    const retry: Record<string, string> =
      err.retryAfter !== undefined ? { 'Retry-After': String(err.retryAfter) } : {};
    return answer(err.status, { error: err.error, error_description: err.message }, retry);
  }
  if (err instanceof OAuthError) {
    const retry: Record<string, string> =
      err.retryAfter !== undefined ? { 'Retry-After': String(err.retryAfter) } : {};
    return answer(
      err.status,
      err.code ? { error: err.message, code: err.code } : { error: err.message },
      retry,
    );
  }
  if (err instanceof ApiError) {
    const retry: Record<string, string> =
      err.retryAfter !== undefined ? { 'Retry-After': String(err.retryAfter) } : {};
    const detail = { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) };
    return answer(err.status, { error: detail }, retry);
  }
  if (err instanceof EnvironmentError) {
    log.error(`the environment is incomplete or malformed: ${err.names.join(', ')}`);
    const message = `the service is misconfigured: ${err.names.join(', ')}`;
    return answer(500, { error: { code: 'BAD_ENVIRONMENT', message } });
  }
  if (err instanceof HTTPException && err.status < 500) {
    const message = err.message || 'invalid request';
    const status = err.status as ContentfulStatusCode;
    if (oauth) return answer(status, { error: message });
    // A 4xx Hono raises itself at 400 is a body it could not read: the one code of a body that fails validation.
    const code = err.status === 400 ? 'VALIDATION_FAILED' : codeOfStatus(err.status);
    return answer(status, {
      error: { code, message, ...(code === 'VALIDATION_FAILED' ? { field: 'body' } : {}) },
    });
  }
  if (isUnstorableText(err)) {
    const message = 'text in the path or body may not contain NUL characters';
    return answer(400, oauth ? { error: message } : { error: { code: 'BAD_REQUEST', message } });
  }
  const retryLater = { 'Retry-After': String(METADATA_RETRY_AFTER) };
  if (isAtConnectionLimit(err)) {
    // Refused at connect, before any statement ran: the request changed nothing in the metadata.
    log.error('the metadata database refused a connection (too many connections):', [...causes(err)].at(-1));
    const message =
      "the service's database is at its connection limit (too many connections); nothing was changed, retry later";
    const body = oauth
      ? { error: message, code: 'temporarily_unavailable' }
      : { error: { code: 'SERVICE_UNAVAILABLE', message } };
    return answer(503, body, retryLater);
  }
  if (isDatabaseUnreachable(err)) {
    // The driver's own message: drizzle's wrapper would log the statement and its parameters.
    log.error('the metadata database is unreachable:', [...causes(err)].at(-1));
    const message = 'the service is temporarily unavailable; retry later';
    const body = oauth
      ? { error: message, code: 'temporarily_unavailable' }
      : { error: { code: 'SERVICE_UNAVAILABLE', message } };
    return answer(503, body, retryLater);
  }
  log.failure('request failed:', err);
  return answer(500, { error: { code: 'INTERNAL', message: 'internal error', request_id: requestId } });
}

/**
 * The challenge a management 401 carries (contract §2, RFC 6750 §3): `Bearer`, with
 * `error="invalid_token"` when the request sent a Bearer token that was refused.
 */
export function bearerChallenge(authorization: string | undefined): string {
  return /^Bearer\s+\S/i.test(authorization ?? '') ? 'Bearer error="invalid_token"' : 'Bearer';
}

/** The app's error handler: {@link errorAnswer} for the request, with the headers its middleware set. */
export function onError(err: Error, c: Context<AppEnv>): Response {
  const { status, body, headers } = errorAnswer(err, c.req.path, c.get('requestId'));
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  if (status === 401 && err instanceof ApiError)
    c.header('WWW-Authenticate', bearerChallenge(c.req.header('authorization')));
  return c.json(body, status);
}
