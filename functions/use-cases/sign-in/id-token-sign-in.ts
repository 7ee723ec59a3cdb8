/**
 * Sign-in with a provider's ID token from a native SDK (POST /v1/{appSlug}/oauth/id-token): the
 * app and the user of the subject the token claims are read together in one statement; that user
 * is trusted only once the token is verified for that subject. Only a token of this app
 * (signature and audience checked) never used before spends the app's window.
 */
import { decodeJwt } from 'jose';
import { sha256Hex } from '../../lib/crypto';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import { enabledApp } from './apps';
import { admitIdToken } from './nonces';
import type { IdTokenFlow, SignInProvider } from './providers/provider';
import { allProviders, providerNamed } from './providers/provider-registry';
import { issueSession, type SessionBody } from './sessions';
import { loadAppAndIdentity, REFUSAL_MESSAGE, signInIdentity } from './users';

/** What the route takes: the app's slug, the provider's name, its ID token and the nonce given to its SDK. */
export interface IdTokenSignIn {
  slug: string;
  provider: string;
  id_token: string;
  nonce?: string;
}

/** Signs in the user an ID token of app `slug`'s provider names, opening their session. */
export async function signInWithIdToken(ctx: RequestContext, input: IdTokenSignIn): Promise<SessionBody> {
  const provider = nativeProvider(input.provider);
  const claimed = claimedSubject(input.id_token);
  const lookup = await loadAppAndIdentity(ctx.http, input.slug, provider.name, claimed);
  const app = enabledApp(lookup.app);
  const settings = app.providers[provider.name];
  if (!settings?.enabled) throw new OAuthError(400, `provider ${provider.name} is not enabled for this app`);
  const nonces = input.nonce === undefined ? undefined : [input.nonce, await sha256Hex(input.nonce)];
  const result = await provider.idToken.verify(ctx.config, { settings, token: input.id_token, nonces });
  if (!result.ok) {
    if (result.problem.kind === 'no_email') throw new OAuthError(400, 'the id token carries no e-mail');
    throw new OAuthError(401, 'invalid id token', 'invalid_token');
  }
  await admitIdToken(ctx, {
    slug: input.slug,
    requireIssuedNonce: app.requireIssuedNonce,
    idToken: input.id_token,
    identity: result.identity,
    requestNonce: input.nonce,
  });
  const who = provider.idToken.identity(result.identity);
  const lookedUp = who.subject === claimed ? { known: lookup.known } : undefined;
  const signIn = await signInIdentity(ctx, { appId: app.id, who, lookedUp });
  if (!signIn.ok) throw new OAuthError(403, REFUSAL_MESSAGE[signIn.refusal]);
  return issueSession(ctx, { app, user: signIn.user });
}

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
