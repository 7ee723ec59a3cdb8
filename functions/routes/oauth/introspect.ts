/** POST /{appSlug}/oauth/introspect: RFC 7662 introspection of access and refresh tokens with the app's server key. */
import { createRoute } from '@hono/zod-openapi';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { introspectToken } from '../../use-cases/sign-in/introspection';
import { requestContext } from '../shared';
import { AppParam, OAuthErrorSchema, oauthGroup, oauthJson } from './oauth-shared';

export const introspectRoutes = oauthGroup();

/** `application/x-www-form-urlencoded` decoding of one part of a Basic credential (RFC 6749 §2.3.1). */
function formDecoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The server key a request presents: as a Bearer token, or as HTTP Basic `client_secret_basic`
 * with the app's app_id as the user (contract §15). Undefined when it presents neither.
 */
export function serverKeyOf(authorization: string | undefined, slug: string): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (bearer) return bearer;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '')?.[1];
  if (!basic) return undefined;
  let decoded: string;
  try {
    decoded = atob(basic);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // Another client_id gets the same 401 as a wrong key: the key is checked against this app only.
  if (formDecoded(decoded.slice(0, colon)) !== slug) return '';
  return formDecoded(decoded.slice(colon + 1)) ?? '';
}

const IntrospectBody = z.object({
  token: z
    .string()
    .max(8192)
    .optional()
    .openapi({ description: 'the access token or refresh token to ask about' }),
  token_type_hint: z.string().max(40).optional().openapi({
    description:
      '`access_token` or `refresh_token`; only a hint: a refresh token is told apart by its `tth_rt_` prefix',
  }),
});

const Introspection = z
  .object({
    active: z.boolean(),
    token_type: z.enum(['Bearer', 'refresh_token']).optional().openapi({
      description: '`Bearer` for an access token, `refresh_token` for a refresh token',
    }),
    client_id: z.string().optional().openapi({ description: "the app's app_id" }),
    sub: z.string().optional().openapi({ description: "the end user's id" }),
    aud: z.string().optional().openapi({ description: 'access tokens only' }),
    iss: z.string().optional(),
    exp: z.number().int().optional(),
    iat: z.number().int().optional(),
    jti: z.string().optional().openapi({ description: 'access tokens only' }),
    email: z.string().optional().openapi({ description: "the end user's address now" }),
    email_verified: z.boolean().optional(),
  })
  .openapi('TokenIntrospection');

introspectRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/introspect',
    tags: ['auth service'],
    summary:
      "Ask whether an access or refresh token of the app is active (RFC 7662), with the app's server key",
    description:
      "For the backend of a site connected to the app: `Authorization: Bearer <SERVICE_AUTH_SERVER_KEY>` (or HTTP Basic with the app_id as user and the key as password, `client_secret_basic`) and the token as `token`, form-encoded as RFC 7662 has it (JSON is taken too). An access token is active when it verifies against the app's published keys for its issuer and audience, has not expired, and its user exists and is not disabled in an enabled app; the answer then carries the token's claims and the user's current e-mail. A refresh token (`tth_rt_…`) is active while it can be redeemed: issued by this app, not yet used for a refresh (rotated away), not revoked (signed out, reuse detected, user deleted), unexpired, of a user not disabled in an enabled app; the answer then carries `token_type: \"refresh_token\"`, `client_id`, `sub`, `iss`, `iat` (when it was issued), `exp` and the user's current e-mail. Anything else is only `{\"active\":false}`. Another app's server key, a rotated one or none is 401 `invalid_client`.",
    security: [{ bearer: [] }, { basic: [] }] as Array<Record<string, string[]>>,
    request: {
      params: AppParam,
      body: {
        content: {
          'application/x-www-form-urlencoded': { schema: IntrospectBody },
          'application/json': { schema: IntrospectBody },
        },
        required: false,
      },
    },
    responses: {
      200: oauthJson(Introspection, 'whether the token is active, and if so its claims'),
      400: oauthJson(OAuthErrorSchema, 'no token given'),
      401: oauthJson(OAuthErrorSchema, "not this app's current server key"),
    },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const token = c.req.valid('form').token ?? c.req.valid('json').token;
    const key = serverKeyOf(c.req.header('authorization'), appSlug);
    c.header('Cache-Control', 'no-store');
    if (key === undefined) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new OAuthError(
        401,
        "present this app's SERVICE_AUTH_SERVER_KEY as a Bearer token",
        'invalid_client',
      );
    }
    if (!token) throw new OAuthError(400, 'token is required', 'invalid_request');
    try {
      return c.json(await introspectToken(requestContext(c), { slug: appSlug, serverKey: key, token }), 200);
    } catch (err) {
      if (err instanceof OAuthError && err.status === 401) c.header('WWW-Authenticate', 'Bearer');
      throw err;
    }
  },
);
