/**
 * The local Google stand-in as a real OpenID client library expects it: `openid-client` finds
 * everything through discovery and runs the whole code flow (PKCE, state, nonce, ID token,
 * userinfo) with client_secret_basic and with client_secret_post. Regression: it refused
 * client_secret_basic although its discovery implied it (the default when none is listed), and
 * had no userinfo endpoint.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignInStandIn, startSignInStandIn, TEST_USERS } from './sign-in-stand-in';

let standIn: SignInStandIn;
const REDIRECT = 'http://127.0.0.1:8976/done';
const alice = TEST_USERS[0] as (typeof TEST_USERS)[number];

beforeAll(async () => {
  standIn = await startSignInStandIn();
});
afterAll(() => standIn?.stop());

const discover = (auth: oidc.ClientAuth) =>
  oidc.discovery(new URL(`${standIn.url}/google`), 'local-web-client', undefined, auth, {
    execute: [oidc.allowInsecureRequests],
  });

/** The browser's part: the picker page, then a pick; returns where the stand-in sends the browser back. */
async function pick(authorizeUrl: URL, userId: string): Promise<URL> {
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(page.status).toBe(200);
  const form = new URLSearchParams(authorizeUrl.searchParams);
  form.set('user', userId);
  const picked = await fetch(`${standIn.url}/google/authorize`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  return new URL(picked.headers.get('location') ?? '');
}

describe('openid-client against the local Google stand-in', () => {
  for (const [method, auth] of [
    ['client_secret_basic', oidc.ClientSecretBasic('local-secret')],
    ['client_secret_post', oidc.ClientSecretPost('local-secret')],
  ] as const) {
    it(`runs the code flow with ${method}: ID token, nonce and userinfo`, async () => {
      const config = await discover(auth);
      const meta = config.serverMetadata();
      expect(meta.token_endpoint_auth_methods_supported).toContain(method);
      expect(meta.userinfo_endpoint).toBe(`${standIn.url}/google/userinfo`);
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
        state,
      });
      const back = await pick(url, alice.id);
      const tokens = await oidc.authorizationCodeGrant(config, back, {
        pkceCodeVerifier: verifier,
        expectedNonce: nonce,
        expectedState: state,
      });
      const claims = tokens.claims();
      expect(claims).toMatchObject({ sub: alice.id, email: alice.email, email_verified: true, nonce });
      const info = await oidc.fetchUserInfo(config, tokens.access_token, alice.id);
      expect(info).toEqual({ sub: alice.id, email: alice.email, email_verified: true, name: alice.name });
    });
  }

  it('sends back unsupported_response_type for anything but code, and invalid_scope without openid', async () => {
    const config = await discover(oidc.ClientSecretPost('local-secret'));
    const implicit = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      response_type: 'token',
    });
    const noOpenid = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'email' });
    for (const [url, error] of [
      [implicit, 'unsupported_response_type'],
      [noOpenid, 'invalid_scope'],
    ] as const) {
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get('location') ?? '').searchParams.get('error')).toBe(error);
    }
  });

  it('refuses a token request that authenticates twice, or not at all', async () => {
    const token = `${standIn.url}/google/token`;
    const form = (extra: Record<string, string>) =>
      new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, ...extra });
    const twice = await fetch(token, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('local-web-client:s').toString('base64')}` },
      body: form({ client_id: 'local-web-client', client_secret: 's' }),
    });
    expect([twice.status, ((await twice.json()) as { error: string }).error]).toEqual([
      400,
      'invalid_request',
    ]);
    const none = await fetch(token, { method: 'POST', body: form({ client_id: 'local-web-client' }) });
    expect([none.status, ((await none.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
  });
});
