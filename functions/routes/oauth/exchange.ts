/** POST /v1/{appSlug}/oauth/exchange: a one-time code and its PKCE verifier for a session. */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { z } from '../../lib/openapi';
import { type ExchangeInput, exchangeCode, redeemCounted } from '../../use-cases/sign-in/exchange';
import { requestContext } from '../shared';
import {
  AppParam,
  jsonBody,
  MAX_BODY_BYTES,
  oauthGroup,
  oauthJson,
  regionOfRequest,
  SessionSchema,
  tokenErrors,
} from './oauth-shared';

// A missing code is an unknown one, a missing verifier a wrong one: the exchange's one 400 is
// invalid_grant (and a code presented without its verifier is burnt, as with a wrong one).
const ExchangeBody = z.object({
  code: z.string().max(200).default('').openapi({ description: 'the one-time code (required)' }),
  // Any string: one outside the verifier rules is a wrong verifier (invalid_grant, code burnt).
  code_verifier: z
    .string()
    .max(1024)
    .default('')
    .openapi({ description: 'the PKCE verifier of the challenge sent at sign-in (required)' }),
  redirect_uri: z.string().max(2048).optional(),
});

/**
 * The exchange body, read ahead of validation so its count can redeem the code in the same
 * call: the input exactly when the route's own validation will accept it, otherwise null. Only
 * a JSON body that declares a length within the limit is read here.
 */
export async function wellFormedExchange(c: Context<AppEnv>): Promise<ExchangeInput | null> {
  const length = Number(c.req.header('content-length') ?? Number.NaN);
  if (!(length <= MAX_BODY_BYTES) || !/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
    return null;
  const parsed = ExchangeBody.safeParse(await c.req.json().catch(() => null));
  return parsed.success ? parsed.data : null;
}

export const exchangeRoutes = oauthGroup();

exchangeRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/exchange',
    tags: ['auth service'],
    summary: 'Exchange a one-time code and its PKCE code_verifier for a session',
    request: {
      params: AppParam,
      ...jsonBody(ExchangeBody),
    },
    responses: { 200: oauthJson(SessionSchema, 'the session'), ...tokenErrors },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const input = c.req.valid('json');
    const counted = c.get('countedExchange');
    const taken = counted?.presented
      ? counted.taken
      : await redeemCounted(requestContext(c), {
          slug: appSlug,
          code: input.code,
          region: regionOfRequest(c),
        });
    // The counting middleware answered 404 for an app that does not exist, before any object.
    const session = await exchangeCode(requestContext(c), { slug: appSlug, input, taken });
    c.header('Cache-Control', 'no-store');
    return c.json(session, 200);
  },
);
