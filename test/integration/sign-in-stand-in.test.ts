/**
 * The sign-in stand-in `npm start` runs for Google and GitHub: a browser sign-in through it
 * ends with a one-time code the app exchanges for a session of the user picked on its page,
 * for any client id and secret an auth app is given; what a provider checks (redirect URI,
 * PKCE, single use) it checks too. Plain HTTP, as a browser would follow the redirects.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SignInStandIn,
  startSignInStandIn,
  TEST_USERS,
} from '../../scripts/local/stand-ins/sign-in-stand-in';
import {
  asClient,
  CLIENT_IP_HEADER,
  cookiesOf,
  createTestAuthApp,
  pkcePair,
  type TestAuthApp,
} from '../helpers/oauth';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

let standIn: SignInStandIn;
let worker: ExtraWorker;
let app: TestAuthApp;

beforeAll(async () => {
  standIn = await startSignInStandIn();
  worker = await startExtraWorker({ ...standIn.env, CLIENT_IP_HEADER });
  app = await createTestAuthApp(worker.baseUrl, { origins: ['http://127.0.0.1', 'myapp://auth'] });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await standIn?.stop();
});

const get = (url: string, cookie = '') =>
  fetch(url, { redirect: 'manual', headers: { ...asClient(), ...(cookie ? { cookie } : {}) } });

/** Runs the browser's part: start, the picker page, a pick, the callback; returns the app's redirect. */
async function signInThroughPicker(provider: 'google' | 'github', userId: string, challenge: string) {
  const start = new URL(`${worker.baseUrl}/v1/${app.slug}/auth/${provider}`);
  start.search = new URLSearchParams({
    redirect_uri: 'http://127.0.0.1:8976/done',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'app-state',
  }).toString();
  const toProvider = await get(start.toString());
  expect(toProvider.status).toBe(302);
  const authorize = new URL(toProvider.headers.get('location') ?? '');
  expect(authorize.origin).toBe(standIn.url);
  const page = await get(authorize.toString());
  expect(page.status).toBe(200);
  const html = await page.text();
  for (const user of TEST_USERS) expect(html).toContain(user.email);
  const form = new URLSearchParams(authorize.searchParams);
  form.set('user', userId);
  const picked = await fetch(`${standIn.url}/${provider}/authorize`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  expect(picked.status).toBe(303);
  const callback = picked.headers.get('location') ?? '';
  expect(callback.startsWith(`${worker.baseUrl}/v1/${app.slug}/auth/${provider}/callback?`)).toBe(true);
  const back = await get(callback, cookiesOf(toProvider));
  expect(back.status).toBe(302);
  return {
    callback,
    cookie: cookiesOf(toProvider),
    appRedirect: new URL(back.headers.get('location') ?? ''),
  };
}

async function exchange(code: string, verifier: string) {
  const res = await fetch(`${worker.baseUrl}/v1/${app.slug}/oauth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...asClient() },
    body: JSON.stringify({ code, code_verifier: verifier }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the local sign-in stand-in', () => {
  it.each(['google', 'github'] as const)(
    '%s: the picked user signs in and the app exchanges its code',
    async (provider) => {
      const alice = TEST_USERS[0];
      if (!alice) throw new Error('no test user');
      const { verifier, challenge } = await pkcePair();
      const { appRedirect } = await signInThroughPicker(provider, alice.id, challenge);
      expect(appRedirect.origin).toBe('http://127.0.0.1:8976');
      expect(appRedirect.searchParams.get('state')).toBe('app-state');
      const code = appRedirect.searchParams.get('code');
      expect(code).toBeTruthy();
      const session = await exchange(code ?? '', verifier);
      expect(session.status).toBe(200);
      expect(decodeJwt(String(session.body.access_token)).email).toBe(alice.email);
    },
  );

  it("a provider code is single use and bound to Tether's PKCE verifier: a replayed callback fails", async () => {
    const bob = TEST_USERS[1];
    if (!bob) throw new Error('no test user');
    const { challenge } = await pkcePair();
    const { callback, cookie } = await signInThroughPicker('google', bob.id, challenge);
    const again = await get(callback, cookie);
    // The state is spent and the provider code redeemed: no second code for the app.
    const location = again.headers.get('location') ?? '';
    expect(location).not.toMatch(/[?&]code=/);
  });

  it('Cancel on the page sends the app access_denied, and no code', async () => {
    const { challenge } = await pkcePair();
    const { appRedirect } = await signInThroughPicker('google', 'deny', challenge);
    expect(appRedirect.searchParams.get('code')).toBeNull();
    expect(appRedirect.searchParams.get('error')).toBeTruthy();
  });

  it('its token endpoint refuses a wrong PKCE verifier and a second use of a code', async () => {
    const authorize = new URL(`${standIn.url}/google/authorize`);
    const { challenge, verifier } = await pkcePair();
    const form = new URLSearchParams({
      client_id: 'any-client',
      redirect_uri: 'https://example.test/cb',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      user: TEST_USERS[0]?.id ?? '',
    });
    const picked = await fetch(authorize, { method: 'POST', body: form, redirect: 'manual' });
    const code = new URL(picked.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const token = (v: string) =>
      fetch(`${standIn.url}/google/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          client_id: 'any-client',
          client_secret: 'any-secret',
          redirect_uri: 'https://example.test/cb',
          code_verifier: v,
        }),
      });
    expect((await token(`${verifier}x`)).status).toBe(400);
    // The failed attempt burnt the code, as Google does.
    expect((await token(verifier)).status).toBe(400);
  });
});
