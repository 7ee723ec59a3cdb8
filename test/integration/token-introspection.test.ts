/**
 * Token introspection (RFC 7662) for a connected site's backend: the SERVICE_AUTH_SERVER_KEY
 * the site is handed asks about its own app's access tokens and refresh tokens, form-encoded or
 * as JSON; a token of a disabled user, of another app, expired, rotated away, signed out or made
 * up is inactive; another app's key, a rotated key or none is 401 invalid_client.
 */
import { describe, expect } from 'vitest';
import { type ApiResponse, api } from '../helpers/api';
import { asClient, createTestAuthApp, type Session, type TestAuthApp } from '../helpers/oauth';
import { oauthTest } from '../helpers/oauth-fixtures';
import { serverKeyOf } from '../helpers/server-key';

/** What the introspection tests share besides the oauthTest fixtures. */
interface Introspection {
  /** The server key of the file's app. */
  key: string;
  /** A second app of another owner, and its server key as first handed out. */
  other: TestAuthApp;
  otherKey: string;
  /** A native Google session of a fresh account of the file's app (or `slug`, audience `aud`). */
  googleSession: (slug?: string, aud?: string) => Promise<Session>;
  /** POST /oauth/introspect of the file's app (or `opts.slug`) with `bearer`, the token form-encoded (or as JSON). */
  introspect: (
    token: string,
    bearer: string | undefined,
    opts?: { slug?: string; json?: boolean },
  ) => Promise<ApiResponse>;
}

const it = oauthTest.extend<{ $file: Introspection }>({
  key: [async ({ app }, use) => use(await serverKeyOf(app)), { scope: 'file' }],
  other: [async ({ worker }, use) => use(await createTestAuthApp(worker.baseUrl)), { scope: 'file' }],
  otherKey: [async ({ other }, use) => use(await serverKeyOf(other)), { scope: 'file' }],
  googleSession: [
    async ({ standIn, app, claims, signIn }, use) =>
      use(async (slug = app.slug, aud = app.google.web) => {
        const res = await signIn<Session>(
          { id_token: await standIn.signIdToken({ ...claims(), aud }) },
          { slug },
        );
        expect(res.status, res.text).toBe(200);
        return res.body;
      }),
    { scope: 'file' },
  ],
  introspect: [
    async ({ worker, app }, use) =>
      use((token, bearer, opts = {}) => {
        const headers: Record<string, string> = {
          ...asClient(),
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        };
        return api(worker.baseUrl).post(
          `/v1/${opts.slug ?? app.slug}/oauth/introspect`,
          opts.json ? { token } : undefined,
          {
            headers: opts.json
              ? headers
              : { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
            ...(opts.json
              ? {}
              : { rawBody: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString() }),
          },
        );
      }),
    { scope: 'file' },
  ],
});

describe('token introspection', () => {
  it("answers an active token's claims to the app's server key, form-encoded or as JSON", async ({
    worker,
    app,
    key,
    googleSession,
    introspect,
  }) => {
    const s = await googleSession();
    const res = await introspect(s.access_token, key);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const now = Math.floor(Date.now() / 1000);
    expect(res.body).toEqual({
      active: true,
      token_type: 'Bearer',
      client_id: app.slug,
      sub: s.user.id,
      aud: app.slug,
      iss: `${worker.baseUrl}/v1/${app.slug}`,
      exp: expect.any(Number),
      iat: expect.any(Number),
      jti: expect.any(String),
      email: s.user.email,
      email_verified: true,
    });
    expect(Number(res.body.exp) - now).toBeGreaterThan(800);
    expect((await introspect(s.access_token, key, { json: true })).body).toEqual(res.body);
  });

  it('says only active:false for a made-up token, another app’s token and a disabled user’s token', async ({
    app,
    key,
    other,
    otherKey,
    googleSession,
    introspect,
  }) => {
    expect((await introspect('not.a.token', key)).body).toEqual({ active: false });
    const theirs = await googleSession(other.slug, other.google.web);
    expect((await introspect(theirs.access_token, key)).body).toEqual({ active: false });
    expect((await introspect(theirs.access_token, otherKey, { slug: other.slug })).body).toMatchObject({
      active: true,
    });

    const s = await googleSession();
    const disabled = await app.admin.patch(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${s.user.id}`,
      { disabled: true },
    );
    expect(disabled.status, disabled.text).toBe(200);
    expect((await introspect(s.access_token, key)).body).toEqual({ active: false });
  });

  it('refuses another app’s key, no key, and a key rotated away with 401 invalid_client; a missing token is 400', async ({
    key,
    other,
    otherKey,
    googleSession,
    introspect,
  }) => {
    const s = await googleSession();
    for (const bearer of [otherKey, undefined, 'tth_sk_made-up']) {
      const res = await introspect(s.access_token, bearer);
      expect(res.status, res.text).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_client' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    const empty = await introspect('', key);
    expect([empty.status, empty.body]).toEqual([
      400,
      { error: 'token is required', code: 'invalid_request' },
    ]);

    const rotated = await other.admin.post(
      `/api/v1/projects/${other.project.id}/auth-apps/${other.id}/server-key/rotate`,
    );
    expect(rotated.status, rotated.text).toBe(200);
    const theirs = await googleSession(other.slug, other.google.web);
    expect((await introspect(theirs.access_token, otherKey, { slug: other.slug })).status).toBe(401);
  });

  it('answers a refresh token while it can be redeemed: not once rotated away, signed out, of another app or made up', async ({
    worker,
    app,
    key,
    other,
    googleSession,
    introspect,
  }) => {
    const s = await googleSession();
    const client = api(worker.baseUrl);
    const res = await introspect(s.refresh_token, key);
    expect(res.status, res.text).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    expect(res.body).toEqual({
      active: true,
      token_type: 'refresh_token',
      client_id: app.slug,
      sub: s.user.id,
      iss: `${worker.baseUrl}/v1/${app.slug}`,
      exp: expect.any(Number),
      iat: expect.any(Number),
      email: s.user.email,
      email_verified: true,
    });
    // Refresh tokens live 30 days.
    expect(Number(res.body.exp) - now).toBeGreaterThan(29 * 24 * 3600);
    expect(Math.abs(Number(res.body.iat) - now)).toBeLessThan(120);
    expect((await introspect(s.refresh_token, key, { json: true })).body).toEqual(res.body);
    // Another app's key is refused for it, and that app's key learns nothing about it (its
    // current key: the test before rotated it).
    const theirKey = await serverKeyOf(other);
    expect((await introspect(s.refresh_token, theirKey)).status).toBe(401);
    expect((await introspect(s.refresh_token, theirKey, { slug: other.slug })).body).toEqual({
      active: false,
    });
    expect((await introspect('tth_rt_made-up', key)).body).toEqual({ active: false });

    // Rotated away by a refresh: the old one is inactive at once, the new one active.
    const refreshed = await client.post(
      `/v1/${app.slug}/oauth/refresh`,
      { refresh_token: s.refresh_token },
      {
        headers: asClient(),
      },
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    const next = String(refreshed.body.refresh_token);
    expect((await introspect(s.refresh_token, key)).body).toEqual({ active: false });
    expect((await introspect(next, key)).body).toMatchObject({ active: true, sub: s.user.id });

    // Signed out: the session's refresh token is inactive.
    const out = await client.post(`/v1/${app.slug}/logout`, { refresh_token: next }, { headers: asClient() });
    expect(out.status, out.text).toBeLessThan(300);
    expect((await introspect(next, key)).body).toEqual({ active: false });
  });

  it("says active:false for a disabled user's refresh token", async ({
    app,
    key,
    googleSession,
    introspect,
  }) => {
    const s = await googleSession();
    expect((await introspect(s.refresh_token, key)).body).toMatchObject({ active: true });
    const disabled = await app.admin.patch(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${s.user.id}`,
      { disabled: true },
    );
    expect(disabled.status, disabled.text).toBe(200);
    expect((await introspect(s.refresh_token, key)).body).toEqual({ active: false });
  });
});
