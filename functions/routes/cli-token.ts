/**
 * The public half of `tether login` (contract §10): POST /cli/device starts a device grant (RFC
 * 8628) and POST /cli/token trades a browser flow's code (RFC 8252 with PKCE) or a device code
 * for a personal token. Neither takes a credential: what proves the request is in its body. They
 * are mounted before the management API's caller middleware and answer errors in RFC 6749's
 * shape, `{"error":"<code>","error_description":"…"}`.
 */
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { AUTHORIZATION_CODE_GRANT, DEVICE_CODE_GRANT } from '../domain/cli-login-rules';
import { clientKey } from '../domain/client-key';
import { validationError, z } from '../lib/openapi';
import { pollDeviceLogin, startDeviceLogin } from '../use-cases/cli-device';
import { type CliLogin, exchangeCliCode, type GrantRefusal } from '../use-cases/cli-login';
import { requestContext } from './shared';

/** A route group whose validation failures answer RFC 6749's `invalid_request`. */
export const cliTokenRoutes = new OpenAPIHono<AppEnv>({
  defaultHook: (result, c) => {
    if (result.success) return;
    return c.json(
      { error: 'invalid_request', error_description: validationError(result.error).message },
      400,
    );
  },
});

const GrantError = z
  .object({
    error: z
      .string()
      .openapi({ description: 'invalid_request, invalid_grant, authorization_pending, slow_down, …' }),
    error_description: z.string().optional(),
  })
  .openapi('GrantError');

const grantJson = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

const CliLoginSchema = z
  .object({
    token: z
      .string()
      .openapi({ description: 'a personal token named after the machine (90 days), shown this once' }),
    account: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
  })
  .openapi('CliLogin');

const clientOf = (c: Context<AppEnv>) => c.req.header(c.get('config').CLIENT_IP_HEADER);

/** Answers a login or its refusal: 429 with Retry-After for a spent limit, else 400 as RFC 6749 says. */
function answer(c: Context<AppEnv>, outcome: CliLogin | GrantRefusal) {
  c.header('Cache-Control', 'no-store');
  if (!('error' in outcome)) return c.json(outcome, 200);
  const body = { error: outcome.error, error_description: outcome.description };
  if (outcome.error !== 'too_many_requests') return c.json(body, 400);
  c.header('Retry-After', String(outcome.retryAfter ?? 60));
  return c.json(body, 429);
}

const TokenRequest = z.discriminatedUnion('grant_type', [
  z.object({
    grant_type: z.literal(AUTHORIZATION_CODE_GRANT),
    code: z.string().min(1).max(200),
    code_verifier: z.string().regex(/^[A-Za-z0-9\-._~]{43,128}$/, 'a PKCE code_verifier (RFC 7636)'),
    redirect_uri: z.string().max(2048).optional(),
  }),
  z.object({
    grant_type: z.literal(DEVICE_CODE_GRANT),
    device_code: z.string().min(1).max(200),
  }),
]);

cliTokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/cli/token',
    tags: ['accounts'],
    security: [],
    summary: "Trade the CLI's code or device code for a personal token (`tether login`)",
    description:
      "authorization_code: the code the browser handed the CLI's loopback redirect, with its PKCE verifier (single use, 120 s). Device code: polled every `interval` seconds; 400 `authorization_pending` until approved, `slow_down` when polled too fast (the interval grows by 5 s), `access_denied`, `expired_token`. Limits per client and 15 minutes: 30 code exchanges, 300 polls.",
    request: { body: { content: { 'application/json': { schema: TokenRequest } }, required: true } },
    responses: {
      200: grantJson(CliLoginSchema, 'the personal token and its account'),
      400: grantJson(GrantError, 'refused, or not yet (device flow), as RFC 6749 and 8628 say'),
      429: grantJson(GrantError, 'too many requests from this client; see Retry-After'),
    },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const ip = clientOf(c);
    const client = clientKey(ip ?? '');
    const ctx = requestContext(c);
    const outcome =
      body.grant_type === AUTHORIZATION_CODE_GRANT
        ? await exchangeCliCode(ctx, {
            client,
            ip,
            grant: { code: body.code, verifier: body.code_verifier, redirectUri: body.redirect_uri },
          })
        : await pollDeviceLogin(ctx, { client, ip, deviceCode: body.device_code });
    return answer(c, outcome);
  },
);

const DeviceAuthorizationSchema = z
  .object({
    device_code: z.string(),
    user_code: z.string().openapi({ example: 'BCDF-GHJK' }),
    verification_uri: z.string(),
    verification_uri_complete: z.string(),
    expires_in: z.number().int().openapi({ example: 600 }),
    interval: z.number().int().openapi({ example: 5 }),
  })
  .openapi('DeviceAuthorization');

cliTokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/cli/device',
    tags: ['accounts'],
    security: [],
    summary: 'Start `tether login --device` (RFC 8628 device authorization)',
    description:
      'The person opens `verification_uri` signed in, types `user_code` and presses Authorize; meanwhile the CLI polls POST /cli/token with the device code. Limit: 20 per client per 15 minutes.',
    request: {
      body: {
        content: {
          'application/json': {
            schema: z.object({ name: z.string().trim().min(1).max(100).optional() }),
          },
        },
        required: false,
      },
    },
    responses: {
      200: grantJson(
        DeviceAuthorizationSchema,
        'the codes, where to type the user code, and how often to poll',
      ),
      400: grantJson(GrantError, 'invalid_request'),
      429: grantJson(GrantError, 'too many starts from this client; see Retry-After'),
    },
  }),
  async (c) => {
    const body = c.req.valid('json') ?? {};
    const ip = clientOf(c);
    const outcome = await startDeviceLogin(requestContext(c), {
      client: clientKey(ip ?? ''),
      ip: ip ?? null,
      name: body.name ?? 'tether CLI',
    });
    c.header('Cache-Control', 'no-store');
    if (!('error' in outcome)) return c.json(outcome, 200);
    c.header('Retry-After', String(outcome.retryAfter ?? 60));
    return c.json({ error: outcome.error, error_description: outcome.description }, 429);
  },
);
