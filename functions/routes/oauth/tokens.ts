/** The token routes of an auth app: native ID-token sign-in, refresh and logout (the exchange: exchange.ts). */
import { createRoute } from '@hono/zod-openapi';
import { z } from '../../lib/openapi';
import { signInWithIdToken } from '../../use-cases/sign-in/id-token-sign-in';
import { logout, refreshSession } from '../../use-cases/sign-in/refresh-tokens';
import { requestContext } from '../shared';
import {
  AppParam,
  jsonBody,
  OAuthErrorSchema,
  oauthGroup,
  oauthJson,
  SessionSchema,
  tokenErrors,
} from './oauth-shared';

export const tokenRoutes = oauthGroup();

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/id-token',
    tags: ['auth service'],
    summary: "Sign in with a provider's ID token from a native SDK (google, apple)",
    request: {
      params: AppParam,
      ...jsonBody(
        z.object({
          provider: z.string().max(40),
          id_token: z.string().max(16384),
          nonce: z.string().min(1).max(512).optional().openapi({
            description:
              "the nonce given to the provider SDK (one from /oauth/nonce, or the client's own; the token may carry it raw or as its SHA-256 hex, as Apple's iOS SDK does); required when the token carries one, unless the Google provider's skip_nonce_check is on",
          }),
        }),
      ),
    },
    responses: {
      200: oauthJson(SessionSchema, 'the session'),
      401: oauthJson(OAuthErrorSchema, 'invalid id token'),
      ...tokenErrors,
      503: oauthJson(OAuthErrorSchema, "the provider's signing keys could not be fetched"),
    },
  }),
  async (c) => {
    const session = await signInWithIdToken(requestContext(c), {
      slug: c.req.valid('param').appSlug,
      ...c.req.valid('json'),
    });
    c.header('Cache-Control', 'no-store');
    return c.json(session, 200);
  },
);

const RefreshBody = z.object({ refresh_token: z.string().min(1).max(200) });

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/refresh',
    tags: ['auth service'],
    summary: 'Rotate a refresh token (a reused token revokes its whole family)',
    request: { params: AppParam, ...jsonBody(RefreshBody) },
    responses: { 200: oauthJson(SessionSchema, 'the new session'), ...tokenErrors },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const session = await refreshSession(requestContext(c), {
      slug: appSlug,
      token: c.req.valid('json').refresh_token,
    });
    c.header('Cache-Control', 'no-store');
    return c.json(session, 200);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/logout',
    tags: ['auth service'],
    summary: 'End the session a refresh token belongs to',
    request: { params: AppParam, ...jsonBody(RefreshBody) },
    responses: {
      200: oauthJson(z.object({ ok: z.literal(true) }), 'signed out (also for unknown tokens)'),
      400: oauthJson(OAuthErrorSchema, 'the body is not JSON or has no refresh_token'),
      404: oauthJson(OAuthErrorSchema, 'unknown app'),
      429: oauthJson(OAuthErrorSchema, 'rate limited; see Retry-After'),
    },
  }),
  async (c) => {
    await logout(requestContext(c), {
      slug: c.req.valid('param').appSlug,
      token: c.req.valid('json').refresh_token,
    });
    return c.json({ ok: true as const }, 200);
  },
);
