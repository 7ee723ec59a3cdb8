/** Pieces shared by the auth service routes under /v1/{appSlug}: OAuth-shaped validation and the path parameter. */

import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { clientKey } from '../../domain/client-key';
import { SERVICE_NAME_RE } from '../../domain/names';
import { type Region, type RequestPlace, regionOf } from '../../domain/regions';
import { OAuthError } from '../../lib/oauth-error';
import { validationError, z } from '../../lib/openapi';
import { MAX_AUTH_BODY_BYTES } from '../../lib/request-limits';
import { assertKnownApp } from '../../use-cases/sign-in/apps';
import { lookUpApp } from '../../use-cases/sign-in/rate-limit';
import { requestContext } from '../shared';

/** The largest request body the auth service reads. */
export const MAX_BODY_BYTES = MAX_AUTH_BODY_BYTES;

/**
 * A route group whose validation failures answer 400 `{"error":"<what is wrong>"}` (no `code`:
 * the error table of docs/auth-service.md names one only for invalid_grant and invalid_token);
 * a path naming no possible app is the 404 of an unknown app, as on every auth route.
 */
export function oauthGroup(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      if (result.error.issues.some((issue) => issue.path[0] === 'appSlug'))
        throw new OAuthError(404, 'unknown app');
      throw new OAuthError(400, validationError(result.error).message);
    },
  });
}

/** `{appSlug}`: an auth app's app_id. */
export const AppParam = z.object({ appSlug: z.string().regex(SERVICE_NAME_RE, 'an auth app id') });

/** The app a counted path names; a path that cannot name one gets no counter of its own. */
function countedSlug(slug: string | undefined): string {
  if (slug === undefined || !SERVICE_NAME_RE.test(slug)) throw new OAuthError(404, 'unknown app');
  return slug;
}

/** The app of a counted request, which must exist before any counter is touched (404 otherwise). */
export async function knownSlug(c: Context<AppEnv>): Promise<string> {
  const slug = countedSlug(c.req.param('appSlug'));
  const ctx = requestContext(c);
  await lookUpApp(ctx, { client: clientOf(c), lookup: () => assertKnownApp(ctx, slug) });
  return slug;
}

/**
 * How the token routes, logout and the JWKS answer scripts of any origin (hono's cors options):
 * what proves such a request is in its body, never a cookie.
 */
export const SCRIPT_CORS = {
  origin: '*',
  allowMethods: ['GET', 'POST'],
  allowHeaders: ['Content-Type'],
  exposeHeaders: ['Retry-After'],
  maxAge: 86400,
};

/**
 * The client a request is counted against (CF-Connecting-IP, or CLIENT_IP_HEADER in local runs),
 * keyed so an attacker cannot vary it cheaply: an IPv6 address counts by its /64.
 */
export function clientOf(c: Context<AppEnv>): string {
  return clientKey(c.req.header(c.get('config').CLIENT_IP_HEADER) ?? '');
}

/** The region a request arrives from (Cloudflare's `request.cf`), whose object keeps its one-time codes. */
export const regionOfRequest = (c: Context<AppEnv>): Region =>
  regionOf(c.req.raw.cf as RequestPlace | undefined);

/** An OAuth error body in the OpenAPI document. */
export const OAuthErrorSchema = z
  .object({ error: z.string(), code: z.string().optional() })
  .openapi('OAuthError');

/** A JSON response entry. */
export const oauthJson = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

/** The user object of session bodies (and, with `disabled`, of the users admin routes). */
export const UserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    email_verified: z.boolean(),
    name: z.string().nullable(),
    avatar_url: z.string().nullable(),
    created_at: z.string(),
    providers: z.array(z.string()),
  })
  .openapi('AuthUser');

/** The session body of the exchange, the ID-token sign-in and the refresh. */
export const SessionSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number().int(),
    token_type: z.literal('Bearer'),
    user: UserSchema,
  })
  .openapi('Session');

/** A required JSON request body of `schema`. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});

/** The error answers of the token routes in the OpenAPI document. */
export const tokenErrors = {
  400: oauthJson(OAuthErrorSchema, 'invalid request or grant'),
  403: oauthJson(OAuthErrorSchema, 'account disabled, user limit reached or app disabled'),
  404: oauthJson(OAuthErrorSchema, 'unknown app'),
  429: oauthJson(OAuthErrorSchema, 'rate limited; see Retry-After'),
};
