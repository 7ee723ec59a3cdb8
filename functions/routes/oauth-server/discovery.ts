/** The discovery documents of an auth app (RFC 8414 and OpenID Connect Discovery; docs/contract.md §15). */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { z } from '../../lib/openapi';
import { serverMetadata } from '../../use-cases/sign-in/oauth-server/metadata';
import { AppParam, knownSlug, OAuthErrorSchema, oauthGroup, oauthJson } from '../oauth/oauth-shared';

const Metadata = z.record(z.string(), z.unknown()).openapi('AuthorizationServerMetadata');

export const discoveryRoutes = oauthGroup();

/** Serves the app's metadata; the app must exist (404 otherwise, as on every auth route). */
async function metadata(c: Context<AppEnv>) {
  const slug = await knownSlug(c);
  c.header('Cache-Control', 'public, max-age=300');
  return c.json(serverMetadata(c.get('config'), slug), 200);
}

for (const [path, summary] of [
  ['/{appSlug}/.well-known/openid-configuration', 'OpenID Connect Discovery of the app'],
  [
    '/{appSlug}/.well-known/oauth-authorization-server',
    'Authorization server metadata of the app (RFC 8414)',
  ],
] as const) {
  discoveryRoutes.openapi(
    createRoute({
      method: 'get',
      path,
      tags: ['auth service'],
      summary,
      description:
        'The issuer is `{auth_url}/v1/{appSlug}` (the `iss` of every token the app signs) and the client_id its app_id.',
      request: { params: AppParam },
      responses: {
        200: oauthJson(Metadata, 'the metadata'),
        404: oauthJson(OAuthErrorSchema, 'unknown app'),
      },
    }),
    (c) => metadata(c),
  );
}
