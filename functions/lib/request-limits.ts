/**
 * Limits every request body meets before anything reads it: a size per route family (413 when
 * larger, counted on the stream when no length is declared) and, on the auth service's POST
 * routes, a JSON media type (415 otherwise), so a page of another site cannot send them as a
 * simple cross-origin request, which needs no CORS preflight.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';

/** The largest body of the management API and the console. */
export const MAX_API_BODY_BYTES = 256 * 1024;
/** The largest body of the auth service. */
export const MAX_AUTH_BODY_BYTES = 64 * 1024;

const isAuthPath = (path: string): boolean => path.startsWith('/v1/');

function limitOf(path: string): number {
  return isAuthPath(path) ? MAX_AUTH_BODY_BYTES : MAX_API_BODY_BYTES;
}

/**
 * How much of a refused body is still read and thrown away before the 413, and for how long: a
 * client writes its whole body before it reads the answer, and a server that closes the
 * connection with bytes unread resets it, which can discard the 413 the client had not read yet.
 * Past either bound the rest is cancelled (the connection is reset).
 */
const DRAIN_BYTES = 16 * 1024 * 1024;
const DRAIN_MS = 5_000;

/** Reads and discards the rest of a refused body, within {@link DRAIN_BYTES} and {@link DRAIN_MS}. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, read: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), DRAIN_MS);
  });
  try {
    for (let total = read; total <= DRAIN_BYTES; ) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') break;
      if (next.done) return;
      total += next.value.byteLength;
    }
    await reader.cancel().catch(() => undefined);
  } catch {
    // The client went away: nothing left to drain.
  } finally {
    clearTimeout(timer);
  }
}

/** The 413 of a body past `maxSize`: text for the console's forms, the API's or auth's error shape otherwise. */
function refuse(c: Context, maxSize: number): Response {
  const message = `request body larger than ${maxSize} bytes`;
  // The console posts forms from a browser: a page of text says it best.
  if (c.req.path.startsWith('/console')) return c.text(message, 413);
  throw new HTTPException(413, { message });
}

/**
 * Refuses a body larger than its route family's limit with 413, before any handler reads it:
 * at once when its declared length is larger, else as soon as the stream crosses the limit; in
 * both cases after draining what the client still sends (within bounds). A body within the
 * limit is handed on whole, read into memory (as hono's bodyLimit does).
 */
export const boundedBodies: MiddlewareHandler = async (c, next) => {
  const body = c.req.raw.body;
  if (!body) return next();
  const maxSize = limitOf(c.req.path);
  const length = c.req.raw.headers.has('transfer-encoding') ? null : c.req.header('content-length');
  if (length != null) {
    const declared = Number.parseInt(length, 10);
    if (!(declared > maxSize)) return next();
    if (declared <= DRAIN_BYTES) await drain(body.getReader(), 0);
    else await body.cancel().catch(() => undefined);
    return refuse(c, maxSize);
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxSize) {
      await drain(reader, size);
      return refuse(c, maxSize);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  c.req.raw = new Request(c.req.raw, { body: whole });
  return next();
};

const JSON_MEDIA_TYPE = /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * Paths whose POST may be a form: a provider's form post, which cannot be JSON (Apple's
 * `form_post` callback); token introspection, which RFC 7662 sends form-encoded (it needs the
 * app's server key in a header no page can send without a preflight); and the standard token,
 * revoke and userinfo endpoints (contract §15), which RFC 6749, 7009 and OpenID Connect send
 * form-encoded: a code is useless without its PKCE verifier, a refresh token or access token
 * without possession of it, so a page elsewhere gains nothing by sending one.
 */
const FORM_POST_PATHS = /^\/v1\/[^/]+\/(auth\/[^/]+\/callback|oauth\/(introspect|token|revoke|userinfo))$/;

/**
 * Refuses, with 415, an auth-service POST whose body is not declared JSON. A POST without a body
 * (the nonce's) passes; provider callbacks that arrive as form posts pass.
 */
export const jsonAuthPosts: MiddlewareHandler = async (c, next) => {
  if (c.req.method !== 'POST' || !isAuthPath(c.req.path) || FORM_POST_PATHS.test(c.req.path)) return next();
  const declared = c.req.header('content-type');
  const empty = !c.req.raw.body || c.req.header('content-length') === '0';
  if (declared === undefined ? !empty : !JSON_MEDIA_TYPE.test(declared)) {
    throw new HTTPException(415, { message: 'send the body as application/json' });
  }
  return next();
};

/** Whether a content type is JSON (application/json or a +json type). */
export const isJsonMediaType = (contentType: string): boolean => JSON_MEDIA_TYPE.test(contentType);
