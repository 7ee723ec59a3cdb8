/**
 * The id-token rows of the error table (provider, user limit, disabled account or app, unknown
 * app) and Google's keys out of reach (503, not 401).
 */
import { describe, expect } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api } from '../helpers/api';
import { asClient, createTestAuthApp, startOAuthWorker } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';

describe('id-token error table', () => {
  it('400: a provider without native sign-in (github)', async ({ standIn, worker, app, claims }) => {
    const res = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/id-token`,
      { provider: 'github', id_token: await standIn.signIdToken(claims()) },
      { headers: asClient() },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'provider must be one of google, apple' });
  });

  it('400: provider google disabled', async ({ standIn, worker, claims, signIn }) => {
    const off = await createTestAuthApp(worker.baseUrl, { google: false });
    const res = await signIn(
      { id_token: await standIn.signIdToken(claims({ aud: off.google.web })) },
      { slug: off.slug },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'provider google is not enabled for this app' });
  });

  it("403: the app's user limit reached", async ({ standIn, worker, claims, signIn }) => {
    const limited = await createTestAuthApp(worker.baseUrl, { userLimit: 2 });
    const token = () => standIn.signIdToken(claims({ aud: limited.google.web }));
    expect((await signIn({ id_token: await token() }, { slug: limited.slug })).status).toBe(200);
    expect((await signIn({ id_token: await token() }, { slug: limited.slug })).status).toBe(200);
    const third = await signIn({ id_token: await token() }, { slug: limited.slug });
    expect(third.status).toBe(403);
    expect(third.body).toEqual({ error: "This app's user limit has been reached" });
  });

  it('the user limit holds under concurrent sign-ups', async ({ standIn, worker, claims, signIn }) => {
    const limited = await createTestAuthApp(worker.baseUrl, { userLimit: 3 });
    const tokens = await Promise.all(
      Array.from({ length: 10 }, () => standIn.signIdToken(claims({ aud: limited.google.web }))),
    );
    const results = await Promise.all(tokens.map((id_token) => signIn({ id_token }, { slug: limited.slug })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(7);
  });

  it('403: account disabled', async ({ standIn, app, claims, signIn }) => {
    const c = claims();
    const first = await signIn({ id_token: await standIn.signIdToken(c) });
    const userId = (first.body as { user: { id: string } }).user.id;
    await app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${userId}`, {
      disabled: true,
    });
    // A new token of the same account (the first one signed in once, and a replay is 401).
    const res = await signIn({ id_token: await standIn.signIdToken({ ...c, jti: 'a-later-token' }) });
    expect([res.status, res.body]).toEqual([403, { error: 'Account is disabled' }]);
  });

  it('404 for an unknown app, 403 for a disabled one', async ({ standIn, worker, claims, signIn }) => {
    expect(
      (await signIn({ id_token: await standIn.signIdToken(claims()) }, { slug: 'no-such-app-here' })).status,
    ).toBe(404);
    const off = await createTestAuthApp(worker.baseUrl);
    await off.admin.patch(`/api/v1/projects/${off.project.id}/auth-apps/${off.id}`, { enabled: false });
    expect(
      (
        await signIn(
          { id_token: await standIn.signIdToken(claims({ aud: off.google.web })) },
          { slug: off.slug },
        )
      ).status,
    ).toBe(403);
  });
});

describe("Google's keys out of reach", () => {
  it('answers 503, not 401, when the JWKS cannot be fetched', async ({ standIn, claims }) => {
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
