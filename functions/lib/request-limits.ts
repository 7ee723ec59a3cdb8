/**
 * Limits every request body meets before anything reads it: a size per route family (413 when
 * larger, counted on the stream when no length is declared) and, on the auth service's POST
 * routes, a JSON media type (415 otherwise), so a page of another site cannot send them as a
 * simple cross-origin request, which needs no CORS preflight.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';

/** The largest body of the management API and the console. */
export const MAX_API_BODY_BYTES = 256 * 1024;
/** The largest body of the auth service. */
export const MAX_AUTH_BODY_BYTES = 64 * 1024;

const isAuthPath = (path: string): boolean => path.startsWith('/v1/');

function limitOf(path: string): number {
  return isAuthPath(path) ? MAX_AUTH_BODY_BYTES : MAX_API_BODY_BYTES;
}

const limits = new Map(
  [MAX_API_BODY_BYTES, MAX_AUTH_BODY_BYTES].map((maxSize) => [
    maxSize,
    bodyLimit({
      maxSize,
      onError: (c) => {
        const message = `request body larger than ${maxSize} bytes`;
        // The console posts forms from a browser: a page of text says it best.
        if (c.req.path.startsWith('/console')) return c.text(message, 413);
        throw new HTTPException(413, { message });
      },
    }),
  ]),
);

/** Refuses a body larger than its route family's limit with 413, before any handler reads it. */
export const boundedBodies: MiddlewareHandler = (c, next) => {
  const limit = limits.get(limitOf(c.req.path));
  if (!limit) throw new Error('no body limit for this path');
  return limit(c, next);
};

const JSON_MEDIA_TYPE = /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * Paths whose POST may be a form: a provider's form post, which cannot be JSON (Apple's
 * `form_post` callback), and token introspection, which RFC 7662 sends form-encoded (it needs the
 * app's server key in a header no page can send without a preflight).
 */
const FORM_POST_PATHS = /^\/v1\/[^/]+\/(auth\/[^/]+\/callback|oauth\/introspect)$/;

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
