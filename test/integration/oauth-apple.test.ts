/**
 * Sign in with Apple: the browser flow (Apple's form POST callback, the client secret Tether
 * signs, the name of the first callback) and native ID tokens (audience, issuer, expiry, nonce
 * rules with Apple's hashed nonce, issued nonces burnt, forged signatures), against the provider
 * stand-in.
 */
import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';
import { describe, expect } from 'vitest';
import { type ApiResponse, api } from '../helpers/api';
import { appleClaims, appleSignIn, enableApple, sendCallback, type TestApple } from '../helpers/apple';
import { INVALID_GRANT, paramsOf, type Session } from '../helpers/oauth';
import { oauthTest } from '../helpers/oauth-fixtures';
import { APPLE_STAND_IN_ISSUER } from '../helpers/provider-stand-in';

/** The oauthTest fixtures with Apple enabled on the file's app, and a native Apple sign-in to it. */
const it = oauthTest.extend<{
  $file: { apple: TestApple; nativeSignIn: (body: Record<string, unknown>) => Promise<ApiResponse<Session>> };
}>({
  apple: [async ({ app }, use) => use(await enableApple(app)), { scope: 'file' }],
  nativeSignIn: [
    async ({ signIn }, use) => use((body) => signIn<Session>({ provider: 'apple', ...body })),
    { scope: 'file' },
  ],
});

const INVALID_TOKEN = [401, { error: 'invalid id token', code: 'invalid_token' }];

describe('Sign in with Apple in the browser', () => {
  it('sends the browser to Apple with form_post, name and email scope, state and nonce', async ({
    standIn,
    worker,
    app,
    apple,
  }) => {
    const { authorize } = await appleSignIn(worker.baseUrl, standIn, app.slug, {});
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${standIn.url}/apple/auth/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: apple.servicesId,
      redirect_uri: `${worker.baseUrl}/v1/${app.slug}/auth/apple/callback`,
      response_type: 'code',
      scope: 'name email',
      response_mode: 'form_post',
    });
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
  });

  it("ends in a session, with the first callback's name on the end user and a private relay address verified", async ({
    standIn,
    worker,
    app,
    apple,
    exchange,
  }) => {
    const claims = appleClaims(apple.servicesId);
    const user = { name: { firstName: 'Ada', lastName: 'Lovelace' }, email: claims.email };
    const first = await appleSignIn(worker.baseUrl, standIn, app.slug, claims, user);
    const back = await sendCallback(worker.baseUrl, first.callback);
    expect(back.status, back.text).toBe(302);
    const location = back.headers.get('location') ?? '';
    expect(location.startsWith('myapp://auth?')).toBe(true);
    const session = await exchange<Session>({
      code: paramsOf(location).get('code') ?? '',
      code_verifier: first.verifier,
    });
    expect(session.status, session.text).toBe(200);
    expect(session.body.user).toMatchObject({
      email: claims.email,
      email_verified: true,
      name: 'Ada Lovelace',
      providers: ['apple'],
    });
    // A later sign-in carries no `user` field; the name stays.
    const again = await appleSignIn(worker.baseUrl, standIn, app.slug, claims);
    const second = await sendCallback(worker.baseUrl, again.callback);
    const code = paramsOf(second.headers.get('location') ?? '').get('code') ?? '';
    const later = await exchange<Session>({ code, code_verifier: again.verifier });
    expect(later.body.user).toMatchObject({ id: session.body.user.id, name: 'Ada Lovelace' });
  });

  it('presents a client secret it signed itself: ES256, iss team, sub services ID, aud Apple, at most ten minutes', async ({
    standIn,
    worker,
    app,
    apple,
  }) => {
    const before = standIn.tokenRequests.length;
    const flow = await appleSignIn(worker.baseUrl, standIn, app.slug, appleClaims(apple.servicesId));
    expect((await sendCallback(worker.baseUrl, flow.callback)).status).toBe(302);
    const request = standIn.tokenRequests.slice(before).find((r) => r.path === '/apple/token');
    expect(request?.form.get('client_id')).toBe(apple.servicesId);
    const { payload, protectedHeader } = await jwtVerify(
      request?.form.get('client_secret') ?? '',
      apple.publicKey,
      {
        issuer: apple.teamId,
        subject: apple.servicesId,
        audience: 'https://appleid.apple.com',
      },
    );
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: apple.keyId });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeLessThanOrEqual(600);
  });

  it('a replayed callback (used state) is 400 and never redirected; a GET to the POST callback is 404', async ({
    standIn,
    worker,
    app,
    apple,
  }) => {
    const flow = await appleSignIn(worker.baseUrl, standIn, app.slug, appleClaims(apple.servicesId));
    expect((await sendCallback(worker.baseUrl, flow.callback)).status).toBe(302);
    const replay = await sendCallback(worker.baseUrl, flow.callback);
    expect([replay.status, replay.body]).toEqual([400, { error: 'unknown, used or expired sign-in state' }]);
    const get = await api(worker.baseUrl).get(`/v1/${app.slug}/auth/apple/callback?state=x&code=y`);
    expect(get.status).toBe(404);
  });

  it("Apple's refusal (user_cancelled_authorize) goes back to the app as error=", async ({
    standIn,
    worker,
    app,
    exchange,
  }) => {
    const flow = await appleSignIn(worker.baseUrl, standIn, app.slug, {});
    const state = new URLSearchParams(flow.callback.rawBody).get('state') ?? '';
    const back = await sendCallback(worker.baseUrl, {
      ...flow.callback,
      rawBody: new URLSearchParams({ state, error: 'user_cancelled_authorize' }).toString(),
    });
    expect(back.status).toBe(302);
    expect(paramsOf(back.headers.get('location') ?? '').get('error')).toContain('user_cancelled_authorize');
    expect(await exchange({ code: 'x'.repeat(43), code_verifier: 'y'.repeat(43) })).toMatchObject({
      status: 400,
      body: INVALID_GRANT,
    });
  });
});

describe('Sign in with Apple natively', () => {
  const hex = (text: string) => createHash('sha256').update(text).digest('hex');

  it('a bundle ID audience signs in; the services ID (Sign in with Apple JS) too', async ({
    standIn,
    apple,
    nativeSignIn,
  }) => {
    for (const aud of [apple.bundleId, apple.servicesId]) {
      const res = await nativeSignIn({ id_token: await standIn.signIdToken(appleClaims(aud)) });
      expect(res.status, res.text).toBe(200);
      expect(res.body.user).toMatchObject({ email_verified: true, providers: ['apple'] });
    }
  });

  it('a wrong audience, a wrong issuer, an expired token and a forged signature are 401', async ({
    standIn,
    apple,
    nativeSignIn,
  }) => {
    const now = Math.floor(Date.now() / 1000);
    const tokens = [
      await standIn.signIdToken(appleClaims('com.other.app')),
      await standIn.signIdToken(appleClaims(apple.bundleId, { iss: 'https://appleid.apple.com.evil' })),
      await standIn.signIdToken(appleClaims(apple.bundleId, { iat: now - 3600, exp: now - 600 })),
      await standIn.signWithOtherKey(appleClaims(apple.bundleId)),
      // A Google token is not an Apple one.
      await standIn.signIdToken(appleClaims(apple.bundleId, { iss: 'https://accounts.google.test' })),
    ];
    for (const id_token of tokens) {
      const res = await nativeSignIn({ id_token });
      expect([res.status, res.body]).toEqual(INVALID_TOKEN);
    }
    expect(APPLE_STAND_IN_ISSUER).not.toBe('https://appleid.apple.com.evil');
  });

  it("an issued nonce, carried as Apple's SHA-256 hex, signs in once; replayed it is 401", async ({
    standIn,
    apple,
    nativeSignIn,
    newNonce,
  }) => {
    const issued = await newNonce();
    expect(issued.status).toBe(201);
    const nonce = issued.body.nonce;
    const token = await standIn.signIdToken(appleClaims(apple.bundleId, { nonce: hex(nonce) }));
    const first = await nativeSignIn({ id_token: token, nonce });
    expect(first.status, first.text).toBe(200);
    const replay = await nativeSignIn({ id_token: token, nonce });
    expect([replay.status, replay.body]).toEqual(INVALID_TOKEN);
    const other = await standIn.signIdToken(appleClaims(apple.bundleId, { nonce: hex(nonce) }));
    expect([(await nativeSignIn({ id_token: other, nonce })).status]).toEqual([401]);
  });

  it('a nonce that does not match, or a request nonce with a token that has none, is 401', async ({
    standIn,
    apple,
    nativeSignIn,
  }) => {
    const token = await standIn.signIdToken(appleClaims(apple.bundleId, { nonce: hex('one') }));
    expect([(await nativeSignIn({ id_token: token, nonce: 'two' })).status]).toEqual([401]);
    const bare = await standIn.signIdToken(appleClaims(apple.bundleId));
    expect([(await nativeSignIn({ id_token: bare, nonce: 'two' })).status]).toEqual([401]);
  });
});
