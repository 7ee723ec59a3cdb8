/** POST /{appSlug}/oauth/introspect: RFC 7662 introspection of access and refresh tokens with the app's server key. */
import { createRoute } from '@hono/zod-openapi';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { introspectToken } from '../../services/sign-in/introspection';
import { requestContext } from '../shared';
import { AppParam, OAuthErrorSchema, oauthGroup, oauthJson } from './shared';

export const introspectRoutes = oauthGroup();

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
      "For the backend of a site connected to the app: `Authorization: Bearer <SERVICE_AUTH_SERVER_KEY>` and the token as `token`, form-encoded as RFC 7662 has it (JSON is taken too). An access token is active when it verifies against the app's published keys for its issuer and audience, has not expired, and its user exists and is not disabled in an enabled app; the answer then carries the token's claims and the user's current e-mail. A refresh token (`tth_rt_…`) is active while it can be redeemed: issued by this app, not yet used for a refresh (rotated away), not revoked (signed out, reuse detected, user deleted), unexpired, of a user not disabled in an enabled app; the answer then carries `token_type: \"refresh_token\"`, `client_id`, `sub`, `iss`, `iat` (when it was issued), `exp` and the user's current e-mail. Anything else is only `{\"active\":false}`. Another app's server key, a rotated one or none is 401 `invalid_client`.",
    security: [{ bearer: [] }],
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
    const key = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    c.header('Cache-Control', 'no-store');
    if (!key) {
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
