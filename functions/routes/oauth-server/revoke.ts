/**
 * POST /{appSlug}/oauth/revoke (RFC 7009; docs/contract.md §15): a refresh token ends its whole
 * session (as the mobile logout); an access token of the app is refused by
 * introspection and UserInfo from then on (access-revocation.ts); any other token, known or not,
 * is answered 200 alike. A resource server that verifies the JWT itself accepts a revoked access
 * token until it expires (at most 15 minutes).
 */
import { createRoute } from '@hono/zod-openapi';
import { TOKEN_PREFIX } from '../../lib/ids';
import { z } from '../../lib/openapi';
import { StandardOAuthError } from '../../lib/standard-oauth-error';
import { revokeAccessToken } from '../../use-cases/sign-in/oauth-server/access-revocation';
import { countSessionRequest } from '../../use-cases/sign-in/rate-limit';
import { logout } from '../../use-cases/sign-in/refresh-tokens';
import { AppParam, clientOf, knownSlug, oauthGroup, oauthJson } from '../oauth/oauth-shared';
import { requestContext } from '../shared';
import { formOrJson, StandardErrorSchema } from './oauth-server-shared';

const RevokeRequest = z.object({
  token: z.string().max(8192).optional(),
  token_type_hint: z.string().max(40).optional().openapi({ description: 'only a hint' }),
  client_id: z.string().max(200).optional(),
});

export const revokeEndpoint = oauthGroup();

revokeEndpoint.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/revoke',
    tags: ['auth service'],
    summary:
      'Revoke a token (RFC 7009): a refresh token ends its session, an access token is refused by introspection and UserInfo',
    request: { params: AppParam, ...formOrJson(RevokeRequest) },
    responses: {
      200: { description: 'done, whatever the token was' },
      400: oauthJson(StandardErrorSchema, 'invalid_request: no token'),
      401: oauthJson(StandardErrorSchema, 'invalid_client: client_id is not this app'),
      429: oauthJson(StandardErrorSchema, 'rate limited; see Retry-After'),
    },
  }),
  async (c) => {
    const slug = await knownSlug(c);
    const ctx = requestContext(c);
    await countSessionRequest(ctx, { route: 'logout', slug, client: clientOf(c) });
    const { token, client_id } = { ...c.req.valid('json'), ...c.req.valid('form') };
    if (client_id !== undefined && client_id !== slug)
      throw new StandardOAuthError(401, 'invalid_client', `client_id must be this issuer's app_id, ${slug}`);
    if (!token) throw new StandardOAuthError(400, 'invalid_request', 'token is required');
    if (token.startsWith(TOKEN_PREFIX.refresh)) await logout(ctx, { slug, token });
    else await revokeAccessToken(ctx, { slug, token });
    c.header('Cache-Control', 'no-store');
    return c.body(null, 200);
  },
);
