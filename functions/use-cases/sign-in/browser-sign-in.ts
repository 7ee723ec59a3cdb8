/**
 * The end of the browser flow, once the provider's callback passed its state check: identify the
 * user, then build where the browser goes next. Every failure from here on goes back to the
 * app's registered redirect_uri as error=<message>.
 */

import { mayUseFragment } from '../../domain/redirect-uris';
import type { Region } from '../../domain/regions';
import { log } from '../../lib/logger';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import type { AuthAppRow } from './apps';
import { issuerOf } from './auth-urls';
import { issueCode } from './code-regions';
import type { StateRecord } from './one-time-codes';
import { ProviderFailure } from './provider-failure';
import type { BrowserFlow, StoredSettings } from './providers/provider';
import { type OpenedSession, openedSessionBody, openSession, type SessionGrant } from './sessions';
import { currentSigningKey } from './signing-keys';
import { type ProviderIdentity, REFUSAL_MESSAGE, type SignInRefusal, signInIdentity } from './users';

/** What finishing a sign-in needs. */
export interface FinishSignIn {
  app: AuthAppRow;
  slug: string;
  record: StateRecord;
  callbackUri: string;
  /** The provider's browser flow. */
  flow: BrowserFlow;
  /** Every parameter of the provider's callback (query or form). */
  params: Readonly<Record<string, string>>;
  /** The provider's settings and secret, refused (OAuthError) when it can no longer sign in. */
  client: () => Promise<{ settings: StoredSettings; secret: string }>;
  /** Where the callback arrived from: the one-time code is kept in that region's object. */
  region: Region;
}

/**
 * `base` with parameters added to its query (`?`) or put in the fragment (`#`). A redirect_uri
 * may carry a query of its own (contract §9): parameters of the same names are replaced, so the
 * app never reads a `code` or `error` the link itself brought.
 */
export function withParams(
  base: string,
  mark: '?' | '#',
  params: Record<string, string | undefined>,
): string {
  const q = base.indexOf('?');
  const path = mark === '?' && q >= 0 ? base.slice(0, q) : base;
  const search = new URLSearchParams(mark === '?' && q >= 0 ? base.slice(q + 1) : '');
  const own = new URLSearchParams();
  for (const name of Object.keys(params)) search.delete(name);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) own.set(name, value);
  const query = mark === '?' ? [search.toString(), own.toString()].filter((p) => p !== '').join('&') : '';
  return mark === '?' ? `${path}?${query}` : `${base}#${own.toString()}`;
}

/**
 * Where a failed sign-in goes: the mobile flow's `error=<message>`, or for a sign-in started at
 * the standard authorize endpoint RFC 6749 §4.1.2.1's `error` code with `error_description` and
 * RFC 9207's `iss`.
 */
function errorLocation(
  record: StateRecord,
  message: string,
  issuer: string,
  code: 'access_denied' | 'server_error' = 'access_denied',
): string {
  const text = message.slice(0, 300);
  if (!record.oidc) return withParams(record.redirectUri, '?', { error: text, state: record.clientState });
  return withParams(record.redirectUri, '?', {
    error: code,
    error_description: text,
    state: record.clientState,
    iss: issuer,
  });
}

async function identify(ctx: RequestContext, input: FinishSignIn) {
  const providerError = input.params.error_description ?? input.params.error;
  if (providerError !== undefined) throw new ProviderFailure(`The provider refused: ${providerError}`);
  const code = input.params.code;
  if (!code) throw new ProviderFailure('The provider returned no code');
  const client = await input.client();
  return input.flow.identify(ctx.config, {
    ...client,
    params: input.params,
    code,
    callbackUri: input.callbackUri,
    verifier: input.record.providerVerifier ?? '',
    nonce: input.record.nonce ?? '',
  });
}

/**
 * The user `who` signs in as and their new session: a returning user in one statement; a new
 * identity is linked or made a user first (signInIdentity). A refusal when the sign-in is refused.
 */
async function signInSession(
  ctx: RequestContext,
  input: FinishSignIn,
  who: ProviderIdentity,
  grant: SessionGrant | undefined,
): Promise<OpenedSession | SignInRefusal> {
  const returning = await openSession(ctx, { appId: input.app.id, who, grant });
  if (returning) return returning;
  const result = await signInIdentity(ctx, { appId: input.app.id, who, lookedUp: { known: null } });
  if (!result.ok) return result.refusal;
  return (await openSession(ctx, { userId: result.user.id, grant })) ?? 'disabled';
}

/** Identifies the user and returns the redirect: code (PKCE), tokens in the fragment (web), or error. */
export async function finishSignIn(ctx: RequestContext, input: FinishSignIn): Promise<string> {
  const { record } = input;
  const issuer = issuerOf(ctx.config, input.slug);
  try {
    const who = await identify(ctx, input);
    // The web flow hands tokens to https (and loopback) origins only; the start route refused the rest.
    if (!record.challenge && !mayUseFragment(record.redirectUri))
      return errorLocation(record, 'PKCE is required for this redirect_uri', issuer);
    const signingKey = await currentSigningKey(ctx.http, ctx.config, input.app);
    const authTime = Math.floor(Date.now() / 1000);
    const oidc = record.oidc ? { ...record.oidc, authTime } : undefined;
    const opened = await signInSession(ctx, input, who, oidc);
    if (typeof opened === 'string') return errorLocation(record, REFUSAL_MESSAGE[opened], issuer);
    if (record.challenge) {
      const code = await issueCode(ctx, {
        slug: input.slug,
        region: input.region,
        record: {
          appId: input.app.id,
          userId: opened.user.id,
          challenge: record.challenge,
          redirectUri: record.redirectUri,
          user: opened.user,
          refreshCiphertext: await ctx.config.keyring.encrypt(opened.refreshToken),
          signingKey,
          ...(oidc ? { oidc } : {}),
        },
      });
      const back = { code, state: record.clientState };
      return withParams(record.redirectUri, '?', record.oidc ? { ...back, iss: issuer } : back);
    }
    const session = await openedSessionBody(ctx.config, input.app.appId, signingKey, opened);
    return withParams(record.redirectUri, '#', {
      access_token: session.access_token,
      refresh_token: session.refresh_token,
      expires_in: String(session.expires_in),
      token_type: session.token_type,
      state: record.clientState,
    });
  } catch (err) {
    if (err instanceof ProviderFailure || err instanceof OAuthError)
      return errorLocation(record, err.message, issuer);
    log.failure('sign-in failed after the provider callback:', err);
    return errorLocation(record, 'Sign-in failed; try again', issuer, 'server_error');
  }
}
