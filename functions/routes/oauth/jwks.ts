/** The public keys that verify an app's access tokens: the app's own keys, never another app's. */
import { createRoute } from '@hono/zod-openapi';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { appPublicKeys } from '../../use-cases/sign-in/sessions';
import { JWKS_MAX_AGE_SECONDS } from '../../use-cases/sign-in/signing-key-status';
import { requestContext } from '../shared';
import { AppParam, OAuthErrorSchema, oauthGroup, oauthJson } from './oauth-shared';

/** One published key: the app's ES256 (P-256) public key. */
const PublicJwk = z
  .object({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    x: z.string(),
    y: z.string(),
    kid: z.string(),
    alg: z.literal('ES256'),
    use: z.literal('sig'),
  })
  .openapi('PublicJwk');

const Jwks = z.object({ keys: z.array(PublicJwk) });

export const jwksRoutes = oauthGroup();

jwksRoutes.openapi(
  createRoute({
    method: 'get',
    path: '/{appSlug}/.well-known/jwks.json',
    tags: ['auth service'],
    summary: "The JWK set that verifies the app's access tokens",
    request: { params: AppParam },
    responses: {
      200: oauthJson(
        Jwks,
        "the public keys: the app's current and next key, and a replaced one until its tokens expire",
      ),
      404: oauthJson(OAuthErrorSchema, 'unknown app'),
    },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const keys = await appPublicKeys(requestContext(c), appSlug);
    if (!keys) throw new OAuthError(404, 'unknown app');
    // Five minutes at most: the next key is published long before it signs (contract §15).
    c.header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    // Every stored public key is made by signing-keys.ts newSigningKey in exactly this shape.
    return c.json({ keys } as z.infer<typeof Jwks>, 200);
  },
);
