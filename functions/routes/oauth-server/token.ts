/**
 * POST /{appSlug}/oauth/token (docs/contract.md §15): RFC 6749's token endpoint for public
 * clients, form-encoded (or JSON). The same one-time codes, lifetimes, single use and rate
 * limits as the mobile exchange; refresh tokens rotate as at its refresh.
 */
import { createRoute } from '@hono/zod-openapi';
import { z } from '../../lib/openapi';
import { tokenGrant } from '../../use-cases/sign-in/oauth-server/token-grants';
import { AppParam, clientOf, knownSlug, oauthGroup, oauthJson, regionOfRequest } from '../oauth/oauth-shared';
import { requestContext } from '../shared';
import { formOrJson, StandardErrorSchema } from './oauth-server-shared';

const TokenRequest = z.object({
  grant_type: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: '`authorization_code` or `refresh_token`' }),
  code: z.string().max(200).optional(),
  code_verifier: z.string().max(1024).optional(),
  redirect_uri: z
    .string()
    .max(2048)
    .optional()
    .openapi({ description: 'the one the authorization request named' }),
  client_id: z.string().max(200).optional().openapi({ description: "the auth app's app_id" }),
  refresh_token: z.string().max(1024).optional(),
  scope: z.string().max(1024).optional(),
});

const TokenAnswer = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string(),
    scope: z.string().optional(),
    id_token: z.string().optional().openapi({ description: 'when the granted scope has openid' }),
  })
  .openapi('TokenAnswer');

export const tokenEndpoint = oauthGroup();

tokenEndpoint.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/token',
    tags: ['auth service'],
    summary: 'The standard token endpoint: authorization_code with PKCE, refresh_token (RFC 6749)',
    description:
      'Form-encoded as RFC 6749 has it (JSON is taken too). `authorization_code` takes `code`, `code_verifier`, `redirect_uri` and `client_id` (the app_id) and redeems the same one-time codes as `oauth/exchange` under its limits; `refresh_token` rotates as `oauth/refresh`. An ID token comes with the answer when the granted scope has `openid`. Errors are RFC 6749 §5.2 `{error, error_description}`.',
    request: { params: AppParam, ...formOrJson(TokenRequest) },
    responses: {
      200: oauthJson(TokenAnswer, 'the tokens'),
      400: oauthJson(StandardErrorSchema, 'invalid_request, invalid_grant or unsupported_grant_type'),
      401: oauthJson(
        StandardErrorSchema,
        'invalid_client: client_id is not this app, or no app has this issuer',
      ),
      429: oauthJson(StandardErrorSchema, 'rate limited; see Retry-After'),
    },
  }),
  async (c) => {
    const slug = await knownSlug(c);
    const params = { ...c.req.valid('json'), ...c.req.valid('form') };
    c.header('Cache-Control', 'no-store');
    c.header('Pragma', 'no-cache');
    const answer = await tokenGrant(requestContext(c), {
      slug,
      client: clientOf(c),
      region: regionOfRequest(c),
      params,
    });
    return c.json(answer, 200);
  },
);
