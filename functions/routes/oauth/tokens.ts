/** The token routes of an auth app: code exchange, native ID-token sign-in, refresh and logout. */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { decodeJwt } from 'jose';
import { type AppEnv, getHttpDb } from '../../context';
import { sha256Hex } from '../../lib/crypto';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { enabledApp, enabledProvider, googleAudiences } from '../../services/auth/apps';
import { type ExchangeInput, exchangeCode, redeemCounted } from '../../services/auth/exchange';
import { asProviderIdentity, verifyGoogleIdToken } from '../../services/auth/google';
import { enforceIssuedNonce } from '../../services/auth/nonces';
import { countVerifiedIdToken } from '../../services/auth/rate-limit';
import { issueSession, logout, refreshSession } from '../../services/auth/sessions';
import { loadAppAndIdentity, REFUSAL_MESSAGE, signInIdentity } from '../../services/auth/users';
import { AppParam, MAX_BODY_BYTES, OAuthErrorSchema, oauthGroup, oauthJson, UserSchema } from './shared';

const SessionSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number().int(),
    token_type: z.literal('Bearer'),
    user: UserSchema,
  })
  .openapi('Session');

const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});

const errors = {
  400: oauthJson(OAuthErrorSchema, 'invalid request or grant'),
  403: oauthJson(OAuthErrorSchema, 'account disabled, user limit reached or app disabled'),
  404: oauthJson(OAuthErrorSchema, 'unknown app'),
  429: oauthJson(OAuthErrorSchema, 'rate limited; see Retry-After'),
};

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

export const tokenRoutes = oauthGroup();

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/exchange',
    tags: ['auth service'],
    summary: 'Exchange a one-time code and its PKCE code_verifier for a session',
    request: {
      params: AppParam,
      ...body(ExchangeBody),
    },
    responses: { 200: oauthJson(SessionSchema, 'the session'), ...errors },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const input = c.req.valid('json');
    const counted = c.get('countedExchange');
    const taken = counted?.presented
      ? counted.taken
      : await redeemCounted(c.get('services').codes, appSlug, input.code);
    // The counting middleware answered 404 for an app that does not exist, before any object.
    const session = await exchangeCode(c.get('config'), appSlug, input, taken);
    c.header('Cache-Control', 'no-store');
    return c.json(session, 200);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/id-token',
    tags: ['auth service'],
    summary: "Sign in with a provider's ID token from a native SDK (google)",
    request: {
      params: AppParam,
      ...body(
        z.object({
          provider: z.string().max(40),
          id_token: z.string().max(16384),
          nonce: z.string().min(1).max(512).optional().openapi({
            description:
              "the nonce given to the provider SDK (one from /oauth/nonce, or the client's own); required when the token carries one, unless the Google provider's skip_nonce_check is on",
          }),
        }),
      ),
    },
    responses: {
      200: oauthJson(SessionSchema, 'the session'),
      401: oauthJson(OAuthErrorSchema, 'invalid id token'),
      ...errors,
      503: oauthJson(OAuthErrorSchema, "Google's signing keys could not be fetched"),
    },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const input = c.req.valid('json');
    if (input.provider !== 'google') throw new OAuthError(400, 'provider must be google');
    // One-shot statements over HTTP. The app and the user of the subject the token claims are
    // read together; that user is trusted only once the token is verified for that subject.
    const reads = getHttpDb(c);
    const claimed = claimedSubject(input.id_token);
    const lookup = await loadAppAndIdentity(reads, appSlug, 'google', claimed);
    const app = enabledApp(lookup.app);
    if (!enabledProvider(app, 'google'))
      throw new OAuthError(400, 'provider google is not enabled for this app');
    const nonces = input.nonce === undefined ? undefined : [input.nonce, await sha256Hex(input.nonce)];
    const result = await verifyGoogleIdToken(
      c.get('config'),
      input.id_token,
      googleAudiences(app),
      nonces,
      app.providers.google?.skip_nonce_check === true,
    );
    if (!result.ok) {
      if (result.problem.kind === 'no_email') throw new OAuthError(400, 'the id token carries no e-mail');
      throw new OAuthError(401, 'invalid id token', 'invalid_token');
    }
    // Only a token of this app (signature and audience checked) spends the app's window.
    await countVerifiedIdToken(c.get('services').rateLimiter, appSlug);
    await enforceIssuedNonce(c.get('services').codes, appSlug, app.requireIssuedNonce, result.identity);
    const who = asProviderIdentity(result.identity);
    const lookedUp = who.subject === claimed ? { known: lookup.known } : undefined;
    const signIn = await signInIdentity(reads, app.id, who, lookedUp);
    if (!signIn.ok) throw new OAuthError(403, REFUSAL_MESSAGE[signIn.refusal]);
    const session = await issueSession(reads, c.get('config'), app, signIn.user);
    c.header('Cache-Control', 'no-store');
    return c.json(session, 200);
  },
);

/** The subject an ID token claims, read without verifying it ('' when it cannot be read). */
function claimedSubject(idToken: string): string {
  try {
    const sub = decodeJwt(idToken).sub;
    return typeof sub === 'string' ? sub : '';
  } catch {
    return '';
  }
}

const RefreshBody = z.object({ refresh_token: z.string().min(1).max(200) });

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/refresh',
    tags: ['auth service'],
    summary: 'Rotate a refresh token (a reused token revokes its whole family)',
    request: { params: AppParam, ...body(RefreshBody) },
    responses: { 200: oauthJson(SessionSchema, 'the new session'), ...errors },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const session = await refreshSession(
      getHttpDb(c),
      c.get('config'),
      appSlug,
      c.req.valid('json').refresh_token,
    );
    c.header('Cache-Control', 'no-store');
    return c.json(session, 200);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/logout',
    tags: ['auth service'],
    summary: 'End the session a refresh token belongs to',
    request: { params: AppParam, ...body(RefreshBody) },
    responses: { 200: oauthJson(z.object({ ok: z.literal(true) }), 'signed out (also for unknown tokens)') },
  }),
  async (c) => {
    await logout(getHttpDb(c), c.req.valid('param').appSlug, c.req.valid('json').refresh_token);
    return c.json({ ok: true as const }, 200);
  },
);
