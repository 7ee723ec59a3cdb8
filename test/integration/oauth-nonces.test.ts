/**
 * Nonces Tether issues (contract §9): POST /oauth/nonce, the
 * first sign-in whose token carries an issued nonce burns it, a replay is 401 invalid_token, and
 * `require_issued_nonce` accepts only tokens bound to an issued nonce.
 */
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { createTestAuthApp, googleClaims, newClient, type TestAuthApp } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';

const INVALID = { error: 'invalid id token', code: 'invalid_token' };
const claims = (target: TestAuthApp, over: Record<string, unknown> = {}) =>
  googleClaims(target.google.android, over);

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

describe('POST /oauth/nonce', () => {
  it('answers 201 {nonce, expires_in: 600}, never cached; each nonce is new', async ({ newNonce }) => {
    const first = await newNonce();
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({ nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: 600 });
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect((await newNonce()).body.nonce).not.toBe(first.body.nonce);
  });

  it('404 for an unknown app, 403 for a disabled one', async ({ worker, newNonce }) => {
    expect((await newNonce({ slug: 'no-such-app-here' })).status).toBe(404);
    const off = await createTestAuthApp(worker.baseUrl);
    await off.admin.patch(`/api/v1/projects/${off.project.id}/auth-apps/${off.id}`, { enabled: false });
    expect((await newNonce({ slug: off.slug })).status).toBe(403);
  });

  it('30 per client per 15 minutes, then 429 with Retry-After; another client is not affected', async ({
    newNonce,
  }) => {
    const client = newClient();
    const results = await Promise.all(Array.from({ length: 40 }, () => newNonce({ client })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(30);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    expect(Number(limited[0]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await newNonce({ client: newClient() })).status).toBe(201);
  });
});

describe('an issued nonce is burnt by the first sign-in', () => {
  it.for([
    ['raw', (nonce: string) => nonce],
    ['as its SHA-256 hex', sha256Hex],
  ] as const)(
    'a token carrying the nonce %s signs in once; the same token again is 401 invalid_token',
    async ([_how, form], { standIn, app, signIn, newNonce }) => {
      const { nonce } = (await newNonce()).body;
      const token = await standIn.signIdToken(claims(app, { nonce: form(nonce) }));
      const first = await signIn({ id_token: token, nonce });
      expect(first.status, first.text).toBe(200);
      const replay = await signIn({ id_token: token, nonce });
      expect([replay.status, replay.body]).toEqual([401, INVALID]);
      // A fresh token bound to the burnt nonce is refused as well.
      const again = await standIn.signIdToken(claims(app, { nonce: form(nonce) }));
      expect((await signIn({ id_token: again, nonce })).status).toBe(401);
    },
  );

  it('of ten parallel sign-ins with one captured token exactly one succeeds', async ({
    standIn,
    app,
    signIn,
    newNonce,
  }) => {
    const { nonce } = (await newNonce()).body;
    const token = await standIn.signIdToken(claims(app, { nonce }));
    const results = await Promise.all(Array.from({ length: 10 }, () => signIn({ id_token: token, nonce })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
  });

  it("one app's nonce is not another app's", async ({ standIn, worker, signIn, newNonce }) => {
    const other = await createTestAuthApp(worker.baseUrl);
    await other.admin.patch(`/api/v1/projects/${other.project.id}/auth-apps/${other.id}`, {
      require_issued_nonce: true,
    });
    const { nonce } = (await newNonce()).body;
    const token = await standIn.signIdToken(claims(other, { nonce }));
    expect((await signIn({ id_token: token, nonce }, { slug: other.slug })).status).toBe(401);
  });
});

/** The file's fixtures and an app that requires issued nonces. */
const strictTest = it.extend<{ $file: { strict: TestAuthApp } }>({
  strict: [
    async ({ worker }, use) => {
      const strict = await createTestAuthApp(worker.baseUrl);
      const res = await strict.admin.patch(`/api/v1/projects/${strict.project.id}/auth-apps/${strict.id}`, {
        require_issued_nonce: true,
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ require_issued_nonce: true });
      await use(strict);
    },
    { scope: 'file' },
  ],
});

describe('require_issued_nonce', () => {
  strictTest(
    'a token without a nonce, or with a nonce Tether did not issue, is 401',
    async ({ standIn, strict, signIn }) => {
      const bare = await signIn(
        { id_token: await standIn.signIdToken(claims(strict)) },
        { slug: strict.slug },
      );
      expect([bare.status, bare.body]).toEqual([401, INVALID]);
      const own = 'a-nonce-the-client-made-up';
      const token = await standIn.signIdToken(claims(strict, { nonce: own }));
      expect((await signIn({ id_token: token, nonce: own }, { slug: strict.slug })).status).toBe(401);
    },
  );

  strictTest(
    'a token bound to an issued nonce signs in, and a captured one cannot be replayed',
    async ({ standIn, strict, signIn, newNonce }) => {
      const { nonce } = (await newNonce({ slug: strict.slug })).body;
      const token = await standIn.signIdToken(claims(strict, { nonce: sha256Hex(nonce) }));
      expect((await signIn({ id_token: token, nonce }, { slug: strict.slug })).status).toBe(200);
      expect((await signIn({ id_token: token, nonce }, { slug: strict.slug })).status).toBe(401);
    },
  );

  it('without the setting a nonce Tether did not issue still signs in (the client nonce rules hold)', async ({
    standIn,
    app,
    signIn,
  }) => {
    const own = 'client-made-nonce';
    const token = await standIn.signIdToken(claims(app, { nonce: own }));
    expect((await signIn({ id_token: token, nonce: own })).status).toBe(200);
  });
});
