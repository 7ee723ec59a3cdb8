/**
 * POST /v1/{appSlug}/oauth/id-token: the ID-token corpus (every forged or unfit token refused
 * with the right status), the id-token rows of the error table, audiences, nonces, linking by
 * verified e-mail, and the JWKS cache.
 */
import { createHash, createHmac, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  githubAccount,
  googleClaims,
  oneTimeCode,
  startOAuthSetup,
  startOAuthWorker,
  stopOAuthSetup,
  type TestAuthApp,
} from '../helpers/oauth';
import type { ProviderStandIn } from '../helpers/provider-stand-in';
import type { ExtraWorker } from '../helpers/worker';

let standIn: ProviderStandIn;
let worker: ExtraWorker;
let app: TestAuthApp;
beforeAll(async () => {
  ({ standIn, worker, app } = await startOAuthSetup());
});
afterAll(() => stopOAuthSetup({ standIn, worker }));

const INVALID = { error: 'invalid id token', code: 'invalid_token' };
/** Claims of a valid token for the app (a fresh Google account unless `sub` is given). */
const claims = (over: Record<string, unknown> = {}) => googleClaims(app.google.web, over);

const signIn = (body: Record<string, unknown>, slug = app.slug) =>
  api(worker.baseUrl).post(
    `/v1/${slug}/oauth/id-token`,
    { provider: 'google', ...body },
    { headers: asClient() },
  );

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('tokens refused before any key is fetched', () => {
  it('alg none and HS256 signed with the public key are 401 and fetch no JWKS', async () => {
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
  it('unknown kid: 401', async () => {
    const token = await standIn.signIdToken(claims(), { kid: 'no-such-kid' });
    expect(await signIn({ id_token: token }).then((r) => [r.status, r.body])).toEqual([401, INVALID]);
  });

  const cases: Array<[string, () => Promise<string>, number]> = [
    ['wrong iss', () => standIn.signIdToken(claims({ iss: 'https://evil.example' })), 401],
    ['wrong aud', () => standIn.signIdToken(claims({ aud: 'someone-else.apps.test' })), 401],
    ['wrong azp', () => standIn.signIdToken(claims({ azp: 'someone-else.apps.test' })), 401],
    ['expired', () => standIn.signIdToken(claims({ exp: Math.floor(Date.now() / 1000) - 3600 })), 401],
    [
      'iat in the future',
      () => standIn.signIdToken(claims({ iat: Math.floor(Date.now() / 1000) + 3600 })),
      401,
    ],
    ['bad signature', () => standIn.signWithOtherKey(claims()), 401],
    [
      'tampered payload',
      async () => {
        const [h, , s] = (await standIn.signIdToken(claims())).split('.');
        return `${h}.${b64(claims({ email: 'victim@example.test' }))}.${s}`;
      },
      401,
    ],
  ];
  it.each(cases)('%s: %i', async (_name, make, status) => {
    const res = await signIn({ id_token: await make() });
    expect([res.status, res.body]).toEqual([status, INVALID]);
  });

  it('nonce mismatch: 401', async () => {
    const token = await standIn.signIdToken(claims({ nonce: 'the-token-nonce' }));
    expect((await signIn({ id_token: token, nonce: 'another-nonce' })).status).toBe(401);
  });

  it('a nonce sent but none in the token: 401', async () => {
    const token = await standIn.signIdToken(claims());
    expect(await signIn({ id_token: token, nonce: 'sent' }).then((r) => [r.status, r.body])).toEqual([
      401,
      INVALID,
    ]);
  });

  it('missing e-mail: 400', async () => {
    const token = await standIn.signIdToken(claims({ email: undefined }));
    const res = await signIn({ id_token: token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'the id token carries no e-mail' });
  });
});

describe('accepted tokens', () => {
  it.each(['web', 'ios', 'android'] as const)('the %s client ID is an accepted audience', async (which) => {
    const res = await signIn({ id_token: await standIn.signIdToken(claims({ aud: app.google[which] })) });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      user: { providers: ['google'] },
    });
  });

  it('azp naming a registered client ID is accepted', async () => {
    const token = await standIn.signIdToken(claims({ aud: app.google.web, azp: app.google.android }));
    expect((await signIn({ id_token: token })).status).toBe(200);
  });

  it('the raw nonce and its SHA-256 hex are both accepted', async () => {
    const nonce = 'client-nonce-123';
    const hex = createHash('sha256').update(nonce).digest('hex');
    expect((await signIn({ id_token: await standIn.signIdToken(claims({ nonce })), nonce })).status).toBe(
      200,
    );
    expect(
      (await signIn({ id_token: await standIn.signIdToken(claims({ nonce: hex })), nonce })).status,
    ).toBe(200);
  });

  // CONTRACT §9 (issue 16): a nonce in the token proves nothing when the request simply omits it.
  it('a token carrying a nonce is 401 when the request sent none, unless the Google provider skips the check (iOS SDKs)', async () => {
    const own = await createTestAuthApp(worker.baseUrl);
    const token = () => standIn.signIdToken(claims({ aud: own.google.ios, nonce: 'sdk-set' }));
    expect(await signIn({ id_token: await token() }, own.slug).then((r) => [r.status, r.body])).toEqual([
      401,
      INVALID,
    ]);
    const path = `/api/v1/projects/${own.project.id}/auth-apps/${own.id}`;
    const on = await own.admin.patch(path, { providers: { google: { skip_nonce_check: true } } });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({
      providers: { google: { skip_nonce_check: true, client_id: own.google.web } },
    });
    expect((await signIn({ id_token: await token() }, own.slug)).status).toBe(200);
    // The switch never admits a request nonce that does not match.
    expect((await signIn({ id_token: await token(), nonce: 'another' }, own.slug)).status).toBe(401);
    const off = await own.admin.patch(path, { providers: { google: { skip_nonce_check: false } } });
    expect(off.body).toMatchObject({ providers: { google: { skip_nonce_check: false } } });
    expect((await signIn({ id_token: await token() }, own.slug)).status).toBe(401);
  });

  it('skip_nonce_check is off by default and echoed in the app', async () => {
    const list = await app.admin.get<{ auth_apps: Array<Record<string, unknown>> }>(
      `/api/v1/projects/${app.project.id}/auth-apps`,
    );
    expect(list.body.auth_apps[0]).toMatchObject({
      require_issued_nonce: false,
      providers: { google: { skip_nonce_check: false } },
    });
  });

  it('a returning Google account signs in as the same user', async () => {
    const c = claims();
    const first = await signIn({ id_token: await standIn.signIdToken(c) });
    const again = await signIn({ id_token: await standIn.signIdToken({ ...c, email_verified: false }) });
    expect(again.status).toBe(200);
    expect((again.body as { user: { id: string } }).user.id).toBe(
      (first.body as { user: { id: string } }).user.id,
    );
  });

  it("a forged token naming a known account's subject is refused (the user is trusted only after verifying)", async () => {
    const c = claims();
    expect((await signIn({ id_token: await standIn.signIdToken(c) })).status).toBe(200);
    const forged = await signIn({ id_token: await standIn.signWithOtherKey(c) });
    expect([forged.status, forged.body]).toEqual([401, { error: 'invalid id token', code: 'invalid_token' }]);
  });

  it('many sign-ins fetch the JWKS no more after the first', async () => {
    const before = standIn.jwksFetches();
    expect(before).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 15; i++)
      expect((await signIn({ id_token: await standIn.signIdToken(claims()) })).status).toBe(200);
    expect(standIn.jwksFetches()).toBe(before);
  });
});

describe('linking by e-mail', () => {
  it('links to the existing user only when the e-mail is verified', async () => {
    const account = githubAccount();
    const email = account.emails[1]?.email as string;
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const gh = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    const userId = (gh.body as { user: { id: string } }).user.id;

    const unverified = await signIn({
      id_token: await standIn.signIdToken(claims({ email, email_verified: false })),
    });
    expect(unverified.status).toBe(403);

    const verified = await signIn({
      id_token: await standIn.signIdToken(claims({ email: email.toUpperCase() })),
    });
    expect(verified.status, verified.text).toBe(200);
    expect((verified.body as { user: { id: string; providers: string[] } }).user).toMatchObject({
      id: userId,
      providers: ['github', 'google'],
    });
  });
});

describe('account pre-hijacking (issue 16)', () => {
  const exchangeUser = async (code: string, verifier: string) => {
    const res = await api(worker.baseUrl).post<{ user: { id: string; providers: string[] } }>(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(res.status, res.text).toBe(200);
    return res.body.user;
  };

  it("an unverified sign-up with a victim's address never shares the user the victim's verified sign-ins make", async () => {
    const account = githubAccount();
    const email = account.emails[1]?.email as string;
    // The attacker gets a Google token for the victim's address that Google has not verified.
    const attackerClaims = claims({ email, email_verified: false });
    const attacker = await signIn({ id_token: await standIn.signIdToken(attackerClaims) });
    expect(attacker.status, attacker.text).toBe(200);
    const attackerUser = (attacker.body as { user: { id: string; email_verified: boolean } }).user;
    expect(attackerUser.email_verified).toBe(false);

    // The victim signs in with GitHub (verified): a user of their own, not the attacker's.
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const victim = await exchangeUser(code, verifier);
    expect(victim.id).not.toBe(attackerUser.id);
    expect(victim.providers).toEqual(['github']);

    // A verified Google sign-in of the victim links to the victim's user, never to the attacker's.
    const google = await signIn({ id_token: await standIn.signIdToken(claims({ email })) });
    expect((google.body as { user: { id: string } }).user.id).toBe(victim.id);

    // The attacker's identity still reaches only the attacker's own user.
    const again = await signIn({ id_token: await standIn.signIdToken(attackerClaims) });
    expect((again.body as { user: { id: string; providers: string[] } }).user).toMatchObject({
      id: attackerUser.id,
      providers: ['google'],
    });
  });

  it('two unverified identities with one address get a user each', async () => {
    const email = `shared-${Date.now()}@example.test`;
    const first = await signIn({
      id_token: await standIn.signIdToken(claims({ email, email_verified: false })),
    });
    const second = await signIn({
      id_token: await standIn.signIdToken(claims({ email, email_verified: false })),
    });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((second.body as { user: { id: string } }).user.id).not.toBe(
      (first.body as { user: { id: string } }).user.id,
    );
  });
});

describe('id-token error table', () => {
  it('400: provider not google', async () => {
    const res = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/id-token`,
      { provider: 'github', id_token: await standIn.signIdToken(claims()) },
      { headers: asClient() },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'provider must be google' });
  });

  it('400: provider google disabled', async () => {
    const off = await createTestAuthApp(worker.baseUrl, { google: false });
    const res = await signIn(
      { id_token: await standIn.signIdToken(claims({ aud: off.google.web })) },
      off.slug,
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'provider google is not enabled for this app' });
  });

  it("403: the app's user limit reached", async () => {
    const limited = await createTestAuthApp(worker.baseUrl, { userLimit: 2 });
    const token = () => standIn.signIdToken(claims({ aud: limited.google.web }));
    expect((await signIn({ id_token: await token() }, limited.slug)).status).toBe(200);
    expect((await signIn({ id_token: await token() }, limited.slug)).status).toBe(200);
    const third = await signIn({ id_token: await token() }, limited.slug);
    expect(third.status).toBe(403);
    expect(third.body).toEqual({ error: "This app's user limit has been reached" });
  });

  it('the user limit holds under concurrent sign-ups', async () => {
    const limited = await createTestAuthApp(worker.baseUrl, { userLimit: 3 });
    const tokens = await Promise.all(
      Array.from({ length: 10 }, () => standIn.signIdToken(claims({ aud: limited.google.web }))),
    );
    const results = await Promise.all(tokens.map((id_token) => signIn({ id_token }, limited.slug)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(7);
  });

  it('403: account disabled', async () => {
    const c = claims();
    const first = await signIn({ id_token: await standIn.signIdToken(c) });
    const userId = (first.body as { user: { id: string } }).user.id;
    await app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${userId}`, {
      disabled: true,
    });
    const res = await signIn({ id_token: await standIn.signIdToken(c) });
    expect([res.status, res.body]).toEqual([403, { error: 'Account is disabled' }]);
  });

  it('404 for an unknown app, 403 for a disabled one', async () => {
    expect((await signIn({ id_token: await standIn.signIdToken(claims()) }, 'no-such-app-here')).status).toBe(
      404,
    );
    const off = await createTestAuthApp(worker.baseUrl);
    await off.admin.patch(`/api/v1/projects/${off.project.id}/auth-apps/${off.id}`, { enabled: false });
    expect(
      (await signIn({ id_token: await standIn.signIdToken(claims({ aud: off.google.web })) }, off.slug))
        .status,
    ).toBe(403);
  });
});

describe("Google's keys out of reach", () => {
  it('answers 503, not 401, when the JWKS cannot be fetched', async () => {
    const closed = await freePort();
    const cut = await startOAuthWorker(standIn, { GOOGLE_JWKS_URL: `http://127.0.0.1:${closed}/certs` });
    try {
      const own = await createTestAuthApp(cut.baseUrl);
      const res = await api(cut.baseUrl).post(
        `/v1/${own.slug}/oauth/id-token`,
        { provider: 'google', id_token: await standIn.signIdToken(claims({ aud: own.google.web })) },
        { headers: asClient() },
      );
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: "Google's signing keys could not be fetched; try again" });
    } finally {
      await cut.stop();
    }
  });
});
