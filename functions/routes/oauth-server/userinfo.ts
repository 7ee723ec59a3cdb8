/** GET and POST /{appSlug}/oauth/userinfo (OpenID Connect Core §5.3; docs/contract.md §15): a Bearer access token's user. */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { z } from '../../lib/openapi';
import { invalidToken, userInfo } from '../../use-cases/sign-in/oauth-server/userinfo';
import { AppParam, knownSlug, oauthGroup, oauthJson } from '../oauth/oauth-shared';
import { requestContext } from '../shared';
import { StandardErrorSchema } from './oauth-server-shared';

const UserInfo = z
  .object({ sub: z.string(), email: z.string(), email_verified: z.boolean(), name: z.string().optional() })
  .openapi('UserInfo');

export const userinfoEndpoint = oauthGroup();

async function answer(c: Context<AppEnv>) {
  const slug = await knownSlug(c);
  c.header('Cache-Control', 'no-store');
  const token = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
  if (!token) {
    c.header('WWW-Authenticate', 'Bearer');
    throw invalidToken();
  }
  try {
    return c.json(await userInfo(requestContext(c), { slug, token }), 200);
  } catch (err) {
    c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    throw err;
  }
}

for (const method of ['get', 'post'] as const) {
  userinfoEndpoint.openapi(
    createRoute({
      method,
      path: '/{appSlug}/oauth/userinfo',
      tags: ['auth service'],
      summary: 'The signed-in user of a Bearer access token (OpenID Connect UserInfo)',
      security: [{ bearer: [] }],
      request: { params: AppParam },
      responses: {
        200: oauthJson(UserInfo, 'the user as they are now'),
        401: oauthJson(StandardErrorSchema, 'invalid_token, with WWW-Authenticate: Bearer'),
      },
    }),
    (c) => answer(c),
  );
}
