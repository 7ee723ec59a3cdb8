/**
 * Pieces of the standard OAuth 2.1 / OpenID Connect endpoints (docs/contract.md §15): their
 * errors in RFC 6749 §5.2's shape, and CORS for the app's registered origins.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../../app-env';
import { matchOrigin } from '../../domain/redirect-uris';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { StandardOAuthError, standardErrorOf } from '../../lib/standard-oauth-error';
import { errorAnswer } from '../../on-error';
import { findAppBySlug } from '../../use-cases/sign-in/apps';
import { requestContext } from '../shared';

/** The paths (under /v1) whose errors are RFC 6749's and whose CORS follows the app's origins. */
export const STANDARD_ENDPOINT = /^\/v1\/[^/]+\/oauth\/(token|revoke|userinfo)$/;

/**
 * Answers the auth service's own refusals on a standard endpoint in RFC 6749 §5.2's shape
 * (`{error, error_description}`), keeping their status, Retry-After and CORS headers.
 */
export const standardErrors: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const err = c.error;
  if (!err || err instanceof StandardOAuthError || !(err instanceof HTTPException) || err.status >= 500)
    return;
  const standard =
    err instanceof OAuthError
      ? standardErrorOf(err)
      : new StandardOAuthError(
          err.status === 413 || err.status === 415 ? err.status : 400,
          'invalid_request',
          err.message,
        );
  const { status, body, headers } = errorAnswer(standard, c.req.path);
  c.res = new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
};

/** Whether `origin` is one of app `slug`'s registered origins (its scheme, host and port). */
async function registeredOrigin(c: Context<AppEnv>, origin: string): Promise<boolean> {
  const slug = /^\/v1\/([^/]+)\//.exec(c.req.path)?.[1];
  if (!slug || !origin) return false;
  const app = await findAppBySlug(requestContext(c), slug).catch(() => undefined);
  return app?.enabled === true && matchOrigin(origin, app.allowedOrigins);
}

/**
 * CORS of the token, revoke and userinfo endpoints: a page of one of the app's registered
 * origins may call them (a browser app redeems its code, refreshes and reads userinfo); any
 * other origin is not told it may read the answer. Costs a metadata read only for a request
 * that carries an Origin.
 */
export const registeredOriginCors = cors({
  origin: async (origin, c) => ((await registeredOrigin(c as Context<AppEnv>, origin)) ? origin : null),
  allowMethods: ['GET', 'POST'],
  allowHeaders: ['Content-Type', 'Authorization'],
  exposeHeaders: ['Retry-After', 'WWW-Authenticate'],
  maxAge: 600,
});

/** An RFC 6749 §5.2 error body in the OpenAPI document. */
export const StandardErrorSchema = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .openapi('StandardOAuthError');

/** A request body taken form-encoded (RFC 6749) or as JSON. */
export const formOrJson = <T extends z.ZodType>(schema: T, required = true) => ({
  body: {
    content: {
      'application/x-www-form-urlencoded': { schema },
      'application/json': { schema },
    },
    required,
  },
});
