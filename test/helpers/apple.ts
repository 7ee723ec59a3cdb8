/**
 * Sign in with Apple in tests: an app's Apple settings with a fresh Sign in with Apple key
 * (.p8, P-256), claims of Apple ID tokens, and the browser flow's form POST callback driven over
 * HTTP against the provider stand-in (helpers/provider-stand-in.ts).
 */
import { exportPKCS8, generateKeyPair } from 'jose';
import { expect } from 'vitest';
import { api, uniqueName } from './api';
import { asClient, browserCookie, keepBinding, pkcePair, type TestAuthApp } from './oauth';
import { APPLE_STAND_IN_ISSUER, type ProviderStandIn } from './provider-stand-in';

/** An app's Apple settings as a test made them. */
export interface TestApple {
  servicesId: string;
  bundleId: string;
  teamId: string;
  keyId: string;
  /** The public half of the key whose .p8 the app holds (to check the client secret's signature). */
  publicKey: CryptoKey;
  privateKeyPem: string;
}

/** A fresh Sign in with Apple key: its .p8 text and public key. */
export async function appleKey(): Promise<{ pem: string; publicKey: CryptoKey }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { pem: await exportPKCS8(privateKey), publicKey };
}

/** Enables Apple (browser and native) on `app` through the auth app PATCH. */
export async function enableApple(app: TestAuthApp): Promise<TestApple> {
  const key = await appleKey();
  const apple: TestApple = {
    servicesId: `com.example.${app.slug.replace(/[^a-z0-9]/g, '')}.web`,
    bundleId: `com.example.${app.slug.replace(/[^a-z0-9]/g, '')}`,
    teamId: 'TEAM123456',
    keyId: 'KEY1234567',
    publicKey: key.publicKey,
    privateKeyPem: key.pem,
  };
  const res = await app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`, {
    providers: {
      apple: {
        enabled: true,
        services_id: apple.servicesId,
        team_id: apple.teamId,
        key_id: apple.keyId,
        private_key: apple.privateKeyPem,
        bundle_ids: [apple.bundleId],
      },
    },
  });
  expect(res.status, res.text).toBe(200);
  return apple;
}

/** Claims of a valid Apple ID token for audience `aud` (a fresh Apple account unless `over` names one). */
export function appleClaims(aud: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const sub = `000${Date.now()}.${uniqueName('apple').replace(/[^a-z0-9]/g, '')}.0001`;
  return {
    iss: APPLE_STAND_IN_ISSUER,
    aud,
    sub,
    email: `${uniqueName('relay')}@privaterelay.appleid.com`,
    email_verified: 'true',
    is_private_email: 'true',
    auth_time: now - 5,
    nonce_supported: true,
    iat: now - 5,
    exp: now + 600,
    ...over,
  };
}

/** The form POST Apple sends back to the app's callback. */
export function appleCallback(slug: string, form: Record<string, string>) {
  return {
    method: 'POST',
    path: `/v1/${slug}/auth/apple/callback`,
    rawBody: new URLSearchParams(form).toString(),
    // Sent by the browser that started the sign-in: its binding cookie goes along.
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...browserCookie(form.state) },
  };
}

/**
 * Starts an Apple browser sign-in to `myapp://auth` with PKCE and answers as Apple would for
 * `claims` (and `user`, the first callback's JSON): the callback request, not yet sent, and the
 * verifier that redeems the code it returns.
 */
export async function appleSignIn(
  baseUrl: string,
  standIn: ProviderStandIn,
  slug: string,
  claims: Record<string, unknown>,
  user?: Record<string, unknown>,
): Promise<{ callback: ReturnType<typeof appleCallback>; verifier: string; authorize: URL }> {
  const { verifier, challenge } = await pkcePair();
  const query = { redirect_uri: 'myapp://auth', code_challenge: challenge, code_challenge_method: 'S256' };
  const start = await api(baseUrl).get(`/v1/${slug}/auth/apple?${new URLSearchParams(query)}`, {
    headers: asClient(),
  });
  expect(start.status, start.text).toBe(302);
  const authorize = new URL(start.headers.get('location') ?? '');
  const code = uniqueName('applecode');
  standIn.appleCode(code, { nonce: authorize.searchParams.get('nonce'), ...claims });
  const form: Record<string, string> = { code, state: authorize.searchParams.get('state') ?? '' };
  if (user) form.user = JSON.stringify(user);
  keepBinding(form.state ?? '', start);
  return { callback: appleCallback(slug, form), verifier, authorize };
}

/** Sends a callback request made by {@link appleCallback}. */
export const sendCallback = (baseUrl: string, call: ReturnType<typeof appleCallback>) =>
  api(baseUrl).post(call.path, undefined, { rawBody: call.rawBody, headers: call.headers });
