/** The public keys that verify an app's access tokens: the app's own keys, never another app's. */
import { createRoute } from '@hono/zod-openapi';
import { getHttpDb } from '../../context';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { appPublicKeys } from '../../use-cases/sign-in/sessions';
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
    const keys = await appPublicKeys(getHttpDb(c), c.get('config'), appSlug);
    if (!keys) throw new OAuthError(404, 'unknown app');
    // Five minutes at most: the next key is published long before it signs (contract §15).
    c.header('Cache-Control', 'public, max-age=300');
    return c.json({ keys }, 200);
  },
);
