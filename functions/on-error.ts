/**
 * The Worker's one error handler: every error a request raises becomes the body of its route
 * family (contract §2): management routes `{"error":{"code","message"}}`, OAuth routes under
 * /v1 `{"error":"<message>","code"?}`. A 4xx Hono raises itself keeps its status.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { pgCode } from './adapters/postgres-sql';
import { EnvironmentError } from './config';
import type { AppEnv } from './context';
import { ApiError, codeOfStatus } from './lib/errors';
import { newId } from './lib/ids';
import { log } from './lib/logger';
import { OAuthError } from './lib/oauth-error';

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

const isOAuthPath = (c: Context<AppEnv>): boolean => c.req.path.startsWith('/v1/');

/** Answers `err` in the shape of the request's route family. */
export function onError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof OAuthError) {
    if (err.retryAfter !== undefined) c.header('Retry-After', String(err.retryAfter));
    return c.json(err.code ? { error: err.message, code: err.code } : { error: err.message }, err.status);
  }
  if (err instanceof ApiError) {
    if (err.retryAfter !== undefined) c.header('Retry-After', String(err.retryAfter));
    return c.json(
      { error: { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) } },
      err.status,
    );
  }
  if (err instanceof EnvironmentError) {
    log.error(`the environment is incomplete or malformed: ${err.names.join(', ')}`);
    return c.json(
      {
        error: { code: 'BAD_ENVIRONMENT', message: `the service is misconfigured: ${err.names.join(', ')}` },
      },
      500,
    );
  }
  if (err instanceof HTTPException && err.status < 500) {
    const message = err.message || 'invalid request';
    if (isOAuthPath(c)) return c.json({ error: message }, err.status);
    // A 4xx Hono raises itself at 400 is a body it could not read: the one code of a body that fails validation.
    const code = err.status === 400 ? 'VALIDATION_FAILED' : codeOfStatus(err.status);
    return c.json(
      { error: { code, message, ...(code === 'VALIDATION_FAILED' ? { field: 'body' } : {}) } },
      err.status,
    );
  }
  if (isUnstorableText(err)) {
    const message = 'text in the path or body may not contain NUL characters';
    if (isOAuthPath(c)) return c.json({ error: message }, 400);
    return c.json({ error: { code: 'BAD_REQUEST', message } }, 400);
  }
  if (isAtConnectionLimit(err)) {
    // Refused at connect, before any statement ran: the request changed nothing in the metadata.
    log.error('the metadata database refused a connection (too many connections):', [...causes(err)].at(-1));
    const message =
      "the service's database is at its connection limit (too many connections); nothing was changed, retry later";
    c.header('Retry-After', String(METADATA_RETRY_AFTER));
    if (isOAuthPath(c)) return c.json({ error: message, code: 'temporarily_unavailable' }, 503);
    return c.json({ error: { code: 'SERVICE_UNAVAILABLE', message } }, 503);
  }
  if (isDatabaseUnreachable(err)) {
    // The driver's own message: drizzle's wrapper would log the statement and its parameters.
    log.error('the metadata database is unreachable:', [...causes(err)].at(-1));
    const message = 'the service is temporarily unavailable; retry later';
    c.header('Retry-After', String(METADATA_RETRY_AFTER));
    if (isOAuthPath(c)) return c.json({ error: message, code: 'temporarily_unavailable' }, 503);
    return c.json({ error: { code: 'SERVICE_UNAVAILABLE', message } }, 503);
  }
  const requestId = c.get('requestId') ?? newId();
  log.failure('request failed:', err);
  return c.json({ error: { code: 'INTERNAL', message: 'internal error', request_id: requestId } }, 500);
}
