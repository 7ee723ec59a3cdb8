/**
 * Sign in with Apple. Browser: Apple returns by form POST (`response_mode=form_post`, asked for
 * whenever `name` or `email` is in scope), our client is the services ID and its secret a JWT we
 * sign (apple-client-secret.ts); the person's name arrives only in the first callback's `user`
 * field, never in the ID token. Native: the app's ID token, addressed to a bundle ID (or the
 * services ID, Sign in with Apple JS); iOS apps hand Apple the SHA-256 of their nonce, which
 * the nonce rules accept. Apple vouches for every address it gives, private relay ones included.
 */

import type { Config } from '../../../config';
import type { IdTokenIdentity } from '../../../domain/id-token-rules';
import { z } from '../../../lib/openapi';
import { ProviderFailure, providerJson } from '../provider-failure';
import type { ProviderIdentity } from '../users';
import { appleClientSecret, applePrivateKey } from './apple-client-secret';
import { settingError } from './client-settings';
import { verifyIdToken } from './id-token';
import type { AuthorizeInput, IdentifyInput, SignInProvider, StoredSettings } from './provider';

const id = z.string().trim().min(1).max(255);

/** Apple's settings as stored (the private key is the provider's secret). */
const Stored = z.object({
  enabled: z.boolean(),
  services_id: z.string().optional(),
  team_id: z.string().optional(),
  key_id: z.string().optional(),
  bundle_ids: z.array(z.string()).default([]),
});
type AppleSettings = z.infer<typeof Stored>;

const Patch = z
  .object({
    enabled: z.boolean().optional(),
    services_id: id.nullable().optional(),
    team_id: z
      .string()
      .trim()
      .regex(/^[A-Z0-9]{10}$/, 'a 10-character Apple team ID')
      .nullable()
      .optional(),
    key_id: z
      .string()
      .trim()
      .regex(/^[A-Z0-9]{10}$/, 'a 10-character Apple key ID')
      .nullable()
      .optional(),
    private_key: z.string().min(1).max(4096).optional().openapi({
      description: 'the Sign in with Apple key (.p8, a PKCS#8 PEM); write-only',
    }),
    bundle_ids: z.array(id).max(20).optional(),
  })
  .strict();

const settingsOf = (raw: StoredSettings): AppleSettings => Stored.parse(raw);

/** Apple's form field `user` (first sign-in only): the person's name, or null. */
function nameOf(user: string | undefined): string | null {
  if (!user) return null;
  try {
    const parsed = JSON.parse(user) as { name?: { firstName?: unknown; lastName?: unknown } };
    const parts = [parsed.name?.firstName, parsed.name?.lastName].filter(
      (p): p is string => typeof p === 'string' && p.trim() !== '',
    );
    return parts.length > 0 ? parts.join(' ').trim().slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** The identity of a verified Apple ID token (`name` from the first callback, when there was one). */
function asIdentity(identity: IdTokenIdentity, name: string | null = null): ProviderIdentity {
  return {
    provider: 'apple',
    subject: identity.subject,
    email: identity.email,
    // Apple gives only addresses it verified (its relay addresses included), as "true" or true.
    emailVerified: identity.emailVerified,
    name,
    avatarUrl: null,
  };
}

async function authorizeUrl(config: Config, input: AuthorizeInput): Promise<string> {
  const settings = settingsOf(input.settings);
  const url = new URL(config.APPLE_AUTHORIZE_URL);
  url.searchParams.set('client_id', settings.services_id ?? '');
  url.searchParams.set('redirect_uri', input.callbackUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'name email');
  url.searchParams.set('response_mode', 'form_post');
  url.searchParams.set('state', input.state);
  if (input.nonce) url.searchParams.set('nonce', input.nonce);
  return url.toString();
}

async function identify(config: Config, input: IdentifyInput): Promise<ProviderIdentity> {
  const settings = settingsOf(input.settings);
  const servicesId = settings.services_id ?? '';
  const clientSecret = await appleClientSecret({
    teamId: settings.team_id ?? '',
    servicesId,
    keyId: settings.key_id ?? '',
    privateKeyPem: input.secret,
  });
  const token = await providerJson('Apple token exchange', config.APPLE_TOKEN_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      client_id: servicesId,
      client_secret: clientSecret,
      code: input.code,
      grant_type: 'authorization_code',
      redirect_uri: input.callbackUri,
    }),
  });
  if (typeof token.id_token !== 'string') throw new ProviderFailure('Apple token exchange: no ID token');
  const result = await verifyIdToken(token.id_token, {
    title: 'Apple',
    jwksUrls: [config.APPLE_JWKS_URL],
    issuers: [config.APPLE_ISSUER],
    audiences: [servicesId],
    nonces: [input.nonce],
  });
  if (!result.ok) throw new ProviderFailure(`Apple ID token rejected: ${result.problem.reason}`);
  return asIdentity(result.identity, nameOf(input.params.user));
}

/** The next settings of a PATCH: a field left out keeps its value, null clears it. */
function merged(current: AppleSettings | undefined, patch: z.infer<typeof Patch>): AppleSettings {
  const pick = (field: 'services_id' | 'team_id' | 'key_id') => {
    const given = patch[field];
    return given === null ? undefined : (given ?? current?.[field]);
  };
  const enabled = patch.enabled ?? current?.enabled;
  if (enabled === undefined) throw settingError('apple', 'enabled', 'required to add apple');
  const next: AppleSettings = { enabled, bundle_ids: patch.bundle_ids ?? current?.bundle_ids ?? [] };
  for (const field of ['services_id', 'team_id', 'key_id'] as const) {
    const value = pick(field);
    if (value !== undefined) next[field] = value;
  }
  return next;
}

/** Sign in with Apple as a provider. */
export const apple: SignInProvider = {
  name: 'apple',
  title: 'Apple',
  patchSchema: Patch,
  viewSchema: z.object({
    enabled: z.boolean(),
    services_id: z.string().optional(),
    team_id: z.string().optional(),
    key_id: z.string().optional(),
    bundle_ids: z.array(z.string()),
    private_key_set: z.boolean(),
  }),
  fields: [
    {
      key: 'services_id',
      label: 'Apple services ID',
      type: 'text',
      clearable: true,
      hint: 'the browser flow’s client ID',
    },
    { key: 'team_id', label: 'Apple team ID', type: 'text', clearable: true },
    { key: 'key_id', label: 'Apple key ID', type: 'text', clearable: true },
    { key: 'private_key', label: 'Apple private key (.p8)', type: 'pem' },
    { key: 'bundle_ids', label: 'Apple bundle IDs', type: 'list', hint: 'one per line: native ID tokens' },
  ],
  async applyPatch(current, raw, secret) {
    const patch = Patch.parse(raw);
    const next = merged(current ? Stored.safeParse(current).data : undefined, patch);
    if (patch.private_key !== undefined && !(await applePrivateKey(patch.private_key)))
      throw settingError(
        'apple',
        'private_key',
        'not a PKCS#8 PEM of a P-256 key (the .p8 file Apple gives)',
      );
    const key = patch.private_key?.trim() ?? secret;
    if (next.enabled && next.services_id === undefined && next.bundle_ids.length === 0)
      throw settingError('apple', 'services_id', 'a services ID or a bundle ID is required to enable apple');
    if (next.enabled && next.services_id !== undefined) {
      // The browser flow signs its client secret with these three.
      if (!next.team_id) throw settingError('apple', 'team_id', 'required with a services ID');
      if (!next.key_id) throw settingError('apple', 'key_id', 'required with a services ID');
      if (!key) throw settingError('apple', 'private_key', 'required with a services ID');
    }
    return { settings: next, secret: key };
  },
  view: (settings, secretSet) => ({ ...settingsOf(settings), private_key_set: secretSet }),
  ready(settings, secret) {
    const s = settingsOf(settings);
    return s.enabled && Boolean(s.services_id && s.team_id && s.key_id && secret);
  },
  browser: { sendsNonce: true, callbackMethod: 'POST', authorizeUrl, identify },
  idToken: {
    verify(config, { settings, token, nonces }) {
      const s = settingsOf(settings);
      return verifyIdToken(token, {
        title: 'Apple',
        jwksUrls: [config.APPLE_JWKS_URL],
        issuers: [config.APPLE_ISSUER],
        audiences: [...s.bundle_ids, ...(s.services_id ? [s.services_id] : [])],
        nonces,
      });
    },
    identity: (identity) => asIdentity(identity),
  },
};
