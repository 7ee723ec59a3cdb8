/** The token routes of an auth app: native ID-token sign-in, refresh and logout (the exchange: exchange.ts). */
import { createRoute } from '@hono/zod-openapi';
import { decodeJwt } from 'jose';
import { sha256Hex } from '../../lib/crypto';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { enabledApp } from '../../use-cases/sign-in/apps';
import { admitIdToken } from '../../use-cases/sign-in/nonces';
import type { IdTokenFlow, SignInProvider } from '../../use-cases/sign-in/providers/provider';
import { allProviders, providerNamed } from '../../use-cases/sign-in/providers/provider-registry';
import { logout, refreshSession } from '../../use-cases/sign-in/refresh-tokens';
import { issueSession } from '../../use-cases/sign-in/sessions';
import { loadAppAndIdentity, REFUSAL_MESSAGE, signInIdentity } from '../../use-cases/sign-in/users';
import { requestContext } from '../shared';
import {
  AppParam,
  jsonBody,
  OAuthErrorSchema,
  oauthGroup,
  oauthJson,
  SessionSchema,
  tokenErrors,
} from './oauth-shared';

export const tokenRoutes = oauthGroup();

tokenRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/oauth/id-token',
    tags: ['auth service'],
    summary: "Sign in with a provider's ID token from a native SDK (google, apple)",
    request: {
      params: AppParam,
      ...jsonBody(
        z.object({
          provider: z.string().max(40),
          id_token: z.string().max(16384),
          nonce: z.string().min(1).max(512).optional().openapi({
            description:
              "the nonce given to the provider SDK (one from /oauth/nonce, or the client's own; the token may carry it raw or as its SHA-256 hex, as Apple's iOS SDK does); required when the token carries one, unless the Google provider's skip_nonce_check is on",
          }),
        }),
      ),
    },
    responses: {
      200: oauthJson(SessionSchema, 'the session'),
      401: oauthJson(OAuthErrorSchema, 'invalid id token'),
      ...tokenErrors,
      503: oauthJson(OAuthErrorSchema, "the provider's signing keys could not be fetched"),
    },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const input = c.req.valid('json');
    const provider = nativeProvider(input.provider);
    // One-shot statements over HTTP. The app and the user of the subject the token claims are
    // read together; that user is trusted only once the token is verified for that subject.
    const ctx = requestContext(c);
    const reads = ctx.http;
    const claimed = claimedSubject(input.id_token);
    const lookup = await loadAppAndIdentity(reads, appSlug, provider.name, claimed);
    const app = enabledApp(lookup.app);
    const settings = app.providers[provider.name];
    if (!settings?.enabled)
      throw new OAuthError(400, `provider ${provider.name} is not enabled for this app`);
    const nonces = input.nonce === undefined ? undefined : [input.nonce, await sha256Hex(input.nonce)];
    const result = await provider.idToken.verify(c.get('config'), {
      settings,
      token: input.id_token,
      nonces,
    });
    if (!result.ok) {
      if (result.problem.kind === 'no_email') throw new OAuthError(400, 'the id token carries no e-mail');
      throw new OAuthError(401, 'invalid id token', 'invalid_token');
    }
    // Only a token of this app (signature and audience checked) never used before spends the app's window.
    await admitIdToken(requestContext(c), {
      slug: appSlug,
      requireIssuedNonce: app.requireIssuedNonce,
      idToken: input.id_token,
      identity: result.identity,
      requestNonce: input.nonce,
    });
    const who = provider.idToken.identity(result.identity);
    const lookedUp = who.subject === claimed ? { known: lookup.known } : undefined;
    const signIn = await signInIdentity(ctx, { appId: app.id, who, lookedUp });
    if (!signIn.ok) throw new OAuthError(403, REFUSAL_MESSAGE[signIn.refusal]);
    const session = await issueSession(ctx, { app, user: signIn.user });
    c.header('Cache-Control', 'no-store');
    return c.json(session, 200);
  },
);

/** The registered provider `name` that takes native ID tokens (400 otherwise). */
function nativeProvider(name: string): SignInProvider & { idToken: IdTokenFlow } {
  const provider = providerNamed(name);
  if (provider?.idToken) return provider as SignInProvider & { idToken: IdTokenFlow };
  const native = allProviders()
    .filter((p) => p.idToken)
    .map((p) => p.name);
  throw new OAuthError(400, `provider must be one of ${native.join(', ')}`);
}

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
    request: { params: AppParam, ...jsonBody(RefreshBody) },
    responses: { 200: oauthJson(SessionSchema, 'the new session'), ...tokenErrors },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const session = await refreshSession(requestContext(c), {
      slug: appSlug,
      token: c.req.valid('json').refresh_token,
    });
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
    request: { params: AppParam, ...jsonBody(RefreshBody) },
    responses: {
      200: oauthJson(z.object({ ok: z.literal(true) }), 'signed out (also for unknown tokens)'),
      400: oauthJson(OAuthErrorSchema, 'the body is not JSON or has no refresh_token'),
      404: oauthJson(OAuthErrorSchema, 'unknown app'),
      429: oauthJson(OAuthErrorSchema, 'rate limited; see Retry-After'),
    },
  }),
  async (c) => {
    await logout(requestContext(c), {
      slug: c.req.valid('param').appSlug,
      token: c.req.valid('json').refresh_token,
    });
    return c.json({ ok: true as const }, 200);
  },
);
