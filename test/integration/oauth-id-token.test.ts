/**
 * POST /v1/{appSlug}/oauth/id-token: the ID-token corpus (every forged or unfit token refused
 * with the right status), audiences, nonces and the JWKS cache. Linking by e-mail is in
 * oauth-id-token-linking.test.ts, the error table's rows in oauth-id-token-errors.test.ts.
 */
import { createHash, createHmac, createPublicKey } from 'node:crypto';
import { describe, expect } from 'vitest';
import { createTestAuthApp } from '../helpers/oauth';
import { oauthTest as it, type OAuthFixtures } from '../helpers/oauth-fixtures';

const INVALID = { error: 'invalid id token', code: 'invalid_token' };

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('tokens refused before any key is fetched', () => {
  it('alg none and HS256 signed with the public key are 401 and fetch no JWKS', async ({
    standIn,
    claims,
    signIn,
  }) => {
    const payload = b64(claims());
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    const pem = createPublicKey({ key: standIn.publicJwk as never, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    });
    const hsHeader = b64({ alg: 'HS256', typ: 'JWT', kid: standIn.kid });
    const hsSig = createHmac('sha256', pem).update(`${hsHeader}.${payload}`).digest('base64url');
    for (const token of [none, `${hsHeader}.${payload}.${hsSig}`, 'not-a-jwt', '']) {
      const res = await signIn({ id_token: token });
      expect([res.status, res.body], token).toEqual([401, INVALID]);
    }
    expect(standIn.jwksFetches()).toBe(0);
  });
});

describe('the ID-token corpus', () => {
  it('unknown kid: 401', async ({ standIn, claims, signIn }) => {
    const token = await standIn.signIdToken(claims(), { kid: 'no-such-kid' });
    expect(await signIn({ id_token: token }).then((r) => [r.status, r.body])).toEqual([401, INVALID]);
  });

  type Make = (f: Pick<OAuthFixtures, 'standIn' | 'claims'>) => Promise<string>;
  const cases: Array<[string, Make, number]> = [
    ['wrong iss', ({ standIn, claims }) => standIn.signIdToken(claims({ iss: 'https://evil.example' })), 401],
    [
      'wrong aud',
      ({ standIn, claims }) => standIn.signIdToken(claims({ aud: 'someone-else.apps.test' })),
      401,
    ],
    [
      'wrong azp',
      ({ standIn, claims }) => standIn.signIdToken(claims({ azp: 'someone-else.apps.test' })),
      401,
    ],
    [
      'expired',
      ({ standIn, claims }) => standIn.signIdToken(claims({ exp: Math.floor(Date.now() / 1000) - 3600 })),
      401,
    ],
    [
      'iat in the future',
      ({ standIn, claims }) => standIn.signIdToken(claims({ iat: Math.floor(Date.now() / 1000) + 3600 })),
      401,
    ],
    ['bad signature', ({ standIn, claims }) => standIn.signWithOtherKey(claims()), 401],
    [
      'tampered payload',
      async ({ standIn, claims }) => {
        const [h, , s] = (await standIn.signIdToken(claims())).split('.');
        return `${h}.${b64(claims({ email: 'victim@example.test' }))}.${s}`;
      },
      401,
    ],
  ];
  it.for(cases)('%s: %i', async ([, make, status], { standIn, claims, signIn }) => {
    const res = await signIn({ id_token: await make({ standIn, claims }) });
    expect([res.status, res.body]).toEqual([status, INVALID]);
  });

  it('nonce mismatch: 401', async ({ standIn, claims, signIn }) => {
    const token = await standIn.signIdToken(claims({ nonce: 'the-token-nonce' }));
    expect((await signIn({ id_token: token, nonce: 'another-nonce' })).status).toBe(401);
  });

  it('a nonce sent but none in the token: 401', async ({ standIn, claims, signIn }) => {
    const token = await standIn.signIdToken(claims());
    expect(await signIn({ id_token: token, nonce: 'sent' }).then((r) => [r.status, r.body])).toEqual([
      401,
      INVALID,
    ]);
  });

  it('missing e-mail: 400', async ({ standIn, claims, signIn }) => {
    const token = await standIn.signIdToken(claims({ email: undefined }));
    const res = await signIn({ id_token: token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'the id token carries no e-mail' });
  });
});

describe('accepted tokens', () => {
  it.for(['web', 'ios', 'android'] as const)(
    'the %s client ID is an accepted audience',
    async (which, { standIn, app, claims, signIn }) => {
      const res = await signIn({ id_token: await standIn.signIdToken(claims({ aud: app.google[which] })) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({
        token_type: 'Bearer',
        expires_in: 900,
        user: { providers: ['google'] },
      });
    },
  );

  it('azp naming a registered client ID is accepted', async ({ standIn, app, claims, signIn }) => {
    const token = await standIn.signIdToken(claims({ aud: app.google.web, azp: app.google.android }));
    expect((await signIn({ id_token: token })).status).toBe(200);
  });

  it('the raw nonce and its SHA-256 hex are both accepted', async ({ standIn, claims, signIn }) => {
    const nonce = 'client-nonce-123';
    const hex = createHash('sha256').update(nonce).digest('hex');
    expect((await signIn({ id_token: await standIn.signIdToken(claims({ nonce })), nonce })).status).toBe(
      200,
    );
    expect(
      (await signIn({ id_token: await standIn.signIdToken(claims({ nonce: hex })), nonce })).status,
    ).toBe(200);
  });

  // contract §9: a nonce in the token proves nothing when the request simply omits it.
  it('a token carrying a nonce is 401 when the request sent none, unless the Google provider skips the check (iOS SDKs)', async ({
    standIn,
    worker,
    claims,
    signIn,
  }) => {
    const own = await createTestAuthApp(worker.baseUrl);
    const token = () => standIn.signIdToken(claims({ aud: own.google.ios, nonce: 'sdk-set' }));
    expect(
      await signIn({ id_token: await token() }, { slug: own.slug }).then((r) => [r.status, r.body]),
    ).toEqual([401, INVALID]);
    const path = `/api/v1/projects/${own.project.id}/auth-apps/${own.id}`;
    const on = await own.admin.patch(path, { providers: { google: { skip_nonce_check: true } } });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({
      providers: { google: { skip_nonce_check: true, client_id: own.google.web } },
    });
    expect((await signIn({ id_token: await token() }, { slug: own.slug })).status).toBe(200);
    // The switch never admits a request nonce that does not match.
    expect((await signIn({ id_token: await token(), nonce: 'another' }, { slug: own.slug })).status).toBe(
      401,
    );
    const off = await own.admin.patch(path, { providers: { google: { skip_nonce_check: false } } });
    expect(off.body).toMatchObject({ providers: { google: { skip_nonce_check: false } } });
    expect((await signIn({ id_token: await token() }, { slug: own.slug })).status).toBe(401);
  });

  it('skip_nonce_check is off by default and echoed in the app', async ({ app }) => {
    const list = await app.admin.get<{ auth_apps: Array<Record<string, unknown>> }>(
      `/api/v1/projects/${app.project.id}/auth-apps`,
    );
    expect(list.body.auth_apps[0]).toMatchObject({
      require_issued_nonce: false,
      providers: { google: { skip_nonce_check: false } },
    });
  });

  it('a returning Google account signs in as the same user', async ({ standIn, claims, signIn }) => {
    const c = claims();
    const first = await signIn({ id_token: await standIn.signIdToken(c) });
    const again = await signIn({ id_token: await standIn.signIdToken({ ...c, email_verified: false }) });
    expect(again.status).toBe(200);
    expect((again.body as { user: { id: string } }).user.id).toBe(
      (first.body as { user: { id: string } }).user.id,
    );
  });

  it("a forged token naming a known account's subject is refused (the user is trusted only after verifying)", async ({
    standIn,
    claims,
    signIn,
  }) => {
    const c = claims();
    expect((await signIn({ id_token: await standIn.signIdToken(c) })).status).toBe(200);
    const forged = await signIn({ id_token: await standIn.signWithOtherKey(c) });
    expect([forged.status, forged.body]).toEqual([401, { error: 'invalid id token', code: 'invalid_token' }]);
  });

  it('many sign-ins fetch the JWKS no more after the first', async ({ standIn, claims, signIn }) => {
    const before = standIn.jwksFetches();
    expect(before).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 15; i++)
      expect((await signIn({ id_token: await standIn.signIdToken(claims()) })).status).toBe(200);
    expect(standIn.jwksFetches()).toBe(before);
  });
});
