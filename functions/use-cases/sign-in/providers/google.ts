/**
 * Google: the authorization redirect and code exchange of the browser flow (its ID token must
 * echo our nonce), and native ID tokens addressed to the web, iOS or Android client ID.
 */

import type { Config } from '../../../config';
import type { IdTokenIdentity } from '../../../domain/id-token-rules';
import { sha256Base64url } from '../../../lib/crypto';
import { z } from '../../../lib/openapi';
import { ProviderFailure, providerJson } from '../provider-failure';
import type { ProviderIdentity } from '../users';
import { clientFields, clientPatchFields, clientViewFields, mergeClient } from './client-settings';
import { verifyIdToken } from './id-token';
import type { IdentifyInput, SignInProvider, StoredSettings } from './provider';

const nativeId = z.string().trim().min(1).max(512).nullable();

/** Google's settings as stored. */
const Stored = z.object({
  enabled: z.boolean(),
  client_id: z.string(),
  native_client_ids: z.object({ ios: z.string(), android: z.string() }).partial().optional(),
  skip_nonce_check: z.boolean().optional(),
});
type GoogleSettings = z.infer<typeof Stored>;

const Patch = z
  .object({
    ...clientPatchFields,
    native_client_ids: z
      .object({ ios: nativeId.optional(), android: nativeId.optional() })
      .strict()
      .optional(),
    skip_nonce_check: z.boolean().optional(),
  })
  .strict();

const settingsOf = (raw: StoredSettings): GoogleSettings => Stored.parse(raw);

/** Client IDs a Google ID token may be addressed to: the web client ID and the native ones. */
export function googleAudiences(settings: StoredSettings): string[] {
  const google = settingsOf(settings);
  const ids = [google.client_id, google.native_client_ids?.ios, google.native_client_ids?.android];
  return ids.filter((id): id is string => typeof id === 'string' && id !== '');
}

/**
 * Native client IDs after a PATCH: each platform named is set (or removed by null), each one left
 * out keeps its value, so `{ios}` alone keeps `android`.
 */
function nativeIds(
  given: { ios?: string | null; android?: string | null } | undefined,
  current: GoogleSettings['native_client_ids'],
): GoogleSettings['native_client_ids'] {
  if (given === undefined) return current;
  const next: Record<string, string> = { ...current };
  for (const platform of ['ios', 'android'] as const) {
    const value = given[platform];
    if (value === null) delete next[platform];
    else if (value !== undefined) next[platform] = value;
  }
  return next;
}

/** Where the browser goes to sign in with Google. */
async function authorizeUrl(
  config: Config,
  input: { settings: StoredSettings; callbackUri: string; state: string; nonce?: string; verifier: string },
): Promise<string> {
  if (!input.nonce) throw new Error('a Google sign-in needs a nonce');
  const url = new URL(config.GOOGLE_AUTHORIZE_URL);
  url.searchParams.set('client_id', settingsOf(input.settings).client_id);
  url.searchParams.set('redirect_uri', input.callbackUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid email profile');
  url.searchParams.set('state', input.state);
  url.searchParams.set('nonce', input.nonce);
  url.searchParams.set('code_challenge', await sha256Base64url(input.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/** Exchanges Google's authorization code for its ID token. */
async function idTokenForCode(config: Config, input: IdentifyInput, clientId: string): Promise<string> {
  const json = await providerJson('Google token exchange', config.GOOGLE_TOKEN_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.callbackUri,
      client_id: clientId,
      client_secret: input.secret,
      code_verifier: input.verifier,
    }),
  });
  if (typeof json.id_token !== 'string')
    throw new ProviderFailure('Google token exchange: no ID token returned');
  return json.id_token;
}

/** The user-facing identity of a verified Google ID token. */
function asIdentity(identity: IdTokenIdentity): ProviderIdentity {
  return {
    provider: 'google',
    subject: identity.subject,
    email: identity.email,
    emailVerified: identity.emailVerified,
    name: identity.name,
    avatarUrl: identity.picture,
  };
}

/** Google as a sign-in provider. */
export const google: SignInProvider = {
  name: 'google',
  title: 'Google',
  patchSchema: Patch,
  viewSchema: z.object({
    ...clientViewFields,
    native_client_ids: z.object({ ios: z.string(), android: z.string() }).partial().optional(),
    skip_nonce_check: z.boolean().openapi({
      description:
        "accept a token's nonce without one in the request (iOS SDKs that set their own); off by default",
    }),
  }),
  fields: [
    ...clientFields('Google'),
    { key: 'native_client_ids.ios', label: 'Native client ID (iOS)', type: 'text', clearable: true },
    { key: 'native_client_ids.android', label: 'Native client ID (Android)', type: 'text', clearable: true },
    {
      key: 'skip_nonce_check',
      label: "Accept an ID token's nonce without one in the request (iOS SDKs that set their own)",
      type: 'flag',
    },
  ],
  async applyPatch(current, raw, secret) {
    const patch = Patch.parse(raw);
    const now = current ? Stored.safeParse(current).data : undefined;
    const client = mergeClient('google', now, patch, secret);
    const ids = nativeIds(patch.native_client_ids, now?.native_client_ids);
    const settings: GoogleSettings = {
      enabled: client.enabled,
      client_id: client.client_id,
      ...(ids ? { native_client_ids: ids } : {}),
      skip_nonce_check: patch.skip_nonce_check ?? now?.skip_nonce_check ?? false,
    };
    return { settings, secret: client.secret };
  },
  view(settings, secretSet) {
    const google = settingsOf(settings);
    return { ...google, skip_nonce_check: google.skip_nonce_check === true, client_secret_set: secretSet };
  },
  ready: (settings, secret) => settings.enabled && Boolean(settingsOf(settings).client_id) && Boolean(secret),
  browser: {
    sendsNonce: true,
    callbackMethod: 'GET',
    authorizeUrl,
    async identify(config, input) {
      const clientId = settingsOf(input.settings).client_id;
      const idToken = await idTokenForCode(config, input, clientId);
      // Only the web client ID is a valid audience here, and the nonce must be the one we sent.
      const result = await verifyIdToken(idToken, {
        title: 'Google',
        jwksUrls: config.googleJwksUrls,
        issuers: config.googleIssuers,
        audiences: [clientId],
        nonces: [input.nonce],
      });
      if (!result.ok) throw new ProviderFailure(`Google ID token rejected: ${result.problem.reason}`);
      return asIdentity(result.identity);
    },
  },
  idToken: {
    verify: (config, { settings, token, nonces }) =>
      verifyIdToken(token, {
        title: 'Google',
        jwksUrls: config.googleJwksUrls,
        issuers: config.googleIssuers,
        audiences: googleAudiences(settings),
        nonces,
        skipNonceCheck: settingsOf(settings).skip_nonce_check === true,
      }),
    identity: asIdentity,
  },
};
