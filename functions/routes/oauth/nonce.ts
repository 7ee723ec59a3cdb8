/** POST /{appSlug}/oauth/nonce: a single-use nonce for a native sign-in (contract §9). */
import { createRoute } from '@hono/zod-openapi';
import { z } from '../../lib/openapi';
import { loadEnabledApp } from '../../use-cases/sign-in/apps';
import { issueNonce, NONCE_TTL_SECONDS } from '../../use-cases/sign-in/nonces';
import { lookUpApp } from '../../use-cases/sign-in/rate-limit';
import { requestContext } from '../shared';
import { AppParam, clientOf, OAuthErrorSchema, oauthGroup, oauthJson } from './oauth-shared';

export const nonceRoutes = oauthGroup();

nonceRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/nonce',
    tags: ['auth service'],
    summary: 'Issue a single-use nonce to bind a native ID token to (10 minutes)',
    description: `Pass the nonce to the provider SDK and send it again as \`nonce\` to /oauth/id-token. The first sign-in whose token carries it (raw or as its SHA-256 hex) burns it; another sign-in with it is 401 invalid_token. With the app setting \`require_issued_nonce\`, only tokens bound to an issued nonce sign in. Limits: 30 per client (an IPv6 client by its /64) per 15 minutes; nonces are stateless (signed), so issuing costs the app nothing. No body is read.`,
    request: { params: AppParam },
    responses: {
      201: oauthJson(
        z.object({ nonce: z.string(), expires_in: z.number().int().openapi({ example: NONCE_TTL_SECONDS }) }),
        'the nonce and its lifetime in seconds',
      ),
      403: oauthJson(OAuthErrorSchema, 'app disabled'),
      404: oauthJson(OAuthErrorSchema, 'unknown app'),
      429: oauthJson(OAuthErrorSchema, 'rate limited; see Retry-After'),
    },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    // The app is looked up first, so a made-up slug never gets a Durable Object of its own.
    const ctx = requestContext(c);
    await lookUpApp(ctx, { client: clientOf(c), lookup: () => loadEnabledApp(ctx, appSlug) });
    const issued = await issueNonce(ctx, { slug: appSlug, client: clientOf(c) });
    c.header('Cache-Control', 'no-store');
    return c.json(issued, 201);
  },
);
