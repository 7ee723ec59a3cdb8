/** The public keys that verify an app's access tokens. */
import { createRoute } from '@hono/zod-openapi';
import { getHttpDb } from '../../context';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { appExists } from '../../services/auth/sessions';
import { signingKeys } from '../../services/auth/signing-keys';
import { AppParam, OAuthErrorSchema, oauthGroup, oauthJson } from './shared';

export const jwksRoutes = oauthGroup();

jwksRoutes.openapi(
  createRoute({
    method: 'get',
    path: '/{appSlug}/.well-known/jwks.json',
    tags: ['auth service'],
    summary: "The JWK set that verifies the app's access tokens",
    request: { params: AppParam },
    responses: {
      200: oauthJson(z.object({ keys: z.array(z.record(z.string(), z.unknown())) }), 'the public keys'),
      404: oauthJson(OAuthErrorSchema, 'unknown app'),
    },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    if (!(await appExists(getHttpDb(c), appSlug))) throw new OAuthError(404, 'unknown app');
    const { publicJwks } = await signingKeys(c.get('config').AUTH_SIGNING_JWK);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.json({ keys: publicJwks as Record<string, unknown>[] }, 200);
  },
);
