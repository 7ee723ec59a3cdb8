/**
 * Nonces Tether issues (contract §9): POST /oauth/nonce, the
 * first sign-in whose token carries an issued nonce burns it, a replay is 401 invalid_token, and
 * `require_issued_nonce` accepts only tokens bound to an issued nonce.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  googleClaims,
  newClient,
  startOAuthSetup,
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
const claims = (target: TestAuthApp, over: Record<string, unknown> = {}) =>
  googleClaims(target.google.android, over);

const newNonce = async (slug = app.slug, client = newClient()) =>
  api(worker.baseUrl).post<{ nonce: string; expires_in: number }>(`/v1/${slug}/oauth/nonce`, undefined, {
    headers: asClient(client),
  });

const signIn = (slug: string, body: Record<string, unknown>) =>
  api(worker.baseUrl).post(
    `/v1/${slug}/oauth/id-token`,
    { provider: 'google', ...body },
    { headers: asClient() },
  );

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

describe('POST /oauth/nonce', () => {
  it('answers 201 {nonce, expires_in: 600}, never cached; each nonce is new', async () => {
    const first = await newNonce();
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({ nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: 600 });
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect((await newNonce()).body.nonce).not.toBe(first.body.nonce);
  });

  it('404 for an unknown app, 403 for a disabled one', async () => {
    expect((await newNonce('no-such-app-here')).status).toBe(404);
    const off = await createTestAuthApp(worker.baseUrl);
    await off.admin.patch(`/api/v1/projects/${off.project.id}/auth-apps/${off.id}`, { enabled: false });
    expect((await newNonce(off.slug)).status).toBe(403);
  });

  it('30 per client per 15 minutes, then 429 with Retry-After; another client is not affected', async () => {
    const client = newClient();
    const results = await Promise.all(Array.from({ length: 40 }, () => newNonce(app.slug, client)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(30);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    expect(Number(limited[0]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await newNonce(app.slug, newClient())).status).toBe(201);
  });
});

describe('an issued nonce is burnt by the first sign-in', () => {
  it.each([
    ['raw', (nonce: string) => nonce],
    ['as its SHA-256 hex', sha256Hex],
  ])(
    'a token carrying the nonce %s signs in once; the same token again is 401 invalid_token',
    async (_how, form) => {
      const { nonce } = (await newNonce()).body;
      const token = await standIn.signIdToken(claims(app, { nonce: form(nonce) }));
      const first = await signIn(app.slug, { id_token: token, nonce });
      expect(first.status, first.text).toBe(200);
      const replay = await signIn(app.slug, { id_token: token, nonce });
      expect([replay.status, replay.body]).toEqual([401, INVALID]);
      // A fresh token bound to the burnt nonce is refused as well.
      const again = await standIn.signIdToken(claims(app, { nonce: form(nonce) }));
      expect((await signIn(app.slug, { id_token: again, nonce })).status).toBe(401);
    },
  );

  it('of ten parallel sign-ins with one captured token exactly one succeeds', async () => {
    const { nonce } = (await newNonce()).body;
    const token = await standIn.signIdToken(claims(app, { nonce }));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => signIn(app.slug, { id_token: token, nonce })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
  });

  it("one app's nonce is not another app's", async () => {
    const other = await createTestAuthApp(worker.baseUrl);
    await other.admin.patch(`/api/v1/projects/${other.project.id}/auth-apps/${other.id}`, {
      require_issued_nonce: true,
    });
    const { nonce } = (await newNonce(app.slug)).body;
    const token = await standIn.signIdToken(claims(other, { nonce }));
    expect((await signIn(other.slug, { id_token: token, nonce })).status).toBe(401);
  });
});

describe('require_issued_nonce', () => {
  let strict: TestAuthApp;
  beforeAll(async () => {
    strict = await createTestAuthApp(worker.baseUrl);
    const res = await strict.admin.patch(`/api/v1/projects/${strict.project.id}/auth-apps/${strict.id}`, {
      require_issued_nonce: true,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ require_issued_nonce: true });
  });

  it('a token without a nonce, or with a nonce Tether did not issue, is 401', async () => {
    const bare = await signIn(strict.slug, { id_token: await standIn.signIdToken(claims(strict)) });
    expect([bare.status, bare.body]).toEqual([401, INVALID]);
    const own = 'a-nonce-the-client-made-up';
    const token = await standIn.signIdToken(claims(strict, { nonce: own }));
    expect((await signIn(strict.slug, { id_token: token, nonce: own })).status).toBe(401);
  });

  it('a token bound to an issued nonce signs in, and a captured one cannot be replayed', async () => {
    const { nonce } = (await newNonce(strict.slug)).body;
    const token = await standIn.signIdToken(claims(strict, { nonce: sha256Hex(nonce) }));
    expect((await signIn(strict.slug, { id_token: token, nonce })).status).toBe(200);
    expect((await signIn(strict.slug, { id_token: token, nonce })).status).toBe(401);
  });

  it('without the setting a nonce Tether did not issue still signs in (the client nonce rules hold)', async () => {
    const own = 'client-made-nonce';
    const token = await standIn.signIdToken(claims(app, { nonce: own }));
    expect((await signIn(app.slug, { id_token: token, nonce: own })).status).toBe(200);
  });
});
