/**
 * Sessions after sign-in: refresh-token rotation, reuse detection that revokes the family,
 * tokens bound to their app, logout, and disabling a user ending their sessions. Scripts of
 * any origin may call the token routes, logout and the JWKS (CORS without credentials), as a
 * web app or a webview app (origin capacitor://localhost) does; preflights are answered before
 * rate counting, and the browser-redirect routes stay navigation-only.
 */
import { describe, expect } from 'vitest';
import { api } from '../helpers/api';
import { asClient, createTestAuthApp, newClient, type Session } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';

describe('refresh and logout', () => {
  it('rotates the refresh token and returns a new session', async ({ session, refresh }) => {
    const first = await session();
    const res = await refresh(first.refresh_token);
    expect(res.status, res.text).toBe(200);
    const next = res.body as unknown as Session;
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(next.user.id).toBe(first.user.id);
    expect((await refresh(next.refresh_token)).status).toBe(200);
  });

  it('reusing a rotated refresh token revokes the whole family', async ({ session, refresh }) => {
    const first = await session();
    const second = (await refresh(first.refresh_token)).body as unknown as Session;
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ code: 'invalid_grant' });
    // The legitimate holder's newer token died with the family.
    expect((await refresh(second.refresh_token)).status).toBe(400);
  });

  it('a refresh token of another app is refused', async ({ worker, session, refresh }) => {
    const first = await session();
    const other = await createTestAuthApp(worker.baseUrl);
    const res = await refresh(first.refresh_token, other.slug);
    expect(res.status).toBe(400);
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('logout ends the session', async ({ worker, app, session, refresh }) => {
    const first = await session();
    const out = await api(worker.baseUrl).post(`/v1/${app.slug}/logout`, {
      refresh_token: first.refresh_token,
    });
    expect([out.status, out.body]).toEqual([200, { ok: true }]);
    expect((await refresh(first.refresh_token)).status).toBe(400);
  });

  it('disabling a user ends their sessions: refresh is refused', async ({ app, session, refresh }) => {
    const first = await session();
    await app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${first.user.id}`, {
      disabled: true,
    });
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(400);
  });

  it('refresh while the app is disabled is 403 and spares the token; an unknown app is 404', async ({
    worker,
    session,
    refresh,
  }) => {
    const other = await createTestAuthApp(worker.baseUrl);
    const token = (await session(other.slug)).refresh_token;
    const refreshOther = (t: string) => refresh(t, other.slug);
    const appPath = `/api/v1/projects/${other.project.id}/auth-apps/${other.id}`;

    expect((await other.admin.patch(appPath, { enabled: false })).status).toBe(200);
    const refused = await refreshOther(token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'this app is disabled' });
    expect((await other.admin.patch(appPath, { enabled: true })).status).toBe(200);
    expect((await refreshOther(token)).status).toBe(200);

    for (const slug of ['no-such-app-here', 'UPPER']) {
      const unknown = await refresh(token, slug);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'unknown app' });
    }
  });
});

describe('scripts of any origin (CORS, no credentials)', () => {
  const WEBVIEW = 'capacitor://localhost';
  /** The file's app called as a script in a webview calls it: preflights and JSON posts from WEBVIEW. */
  const scriptTest = it.extend('webview', async ({ worker, app }) => {
    const url = (path: string) => `${worker.baseUrl}/v1/${app.slug}/${path}`;
    return {
      url,
      preflight: (path: string, client: string) =>
        fetch(url(path), {
          method: 'OPTIONS',
          headers: {
            origin: WEBVIEW,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
            ...asClient(client),
          },
        }),
      post: (path: string, body: unknown, client: string) =>
        fetch(url(path), {
          method: 'POST',
          headers: { origin: WEBVIEW, 'content-type': 'application/json', ...asClient(client) },
          body: JSON.stringify(body),
        }),
    };
  });

  const FAKE_CODE = { code: 'A'.repeat(43), code_verifier: 'v'.repeat(43) };

  scriptTest(
    'a preflight of each token route and logout is 204 allowing POST with a JSON body from any origin',
    async ({ webview: { preflight } }) => {
      for (const path of ['oauth/exchange', 'oauth/id-token', 'oauth/refresh', 'logout']) {
        const res = await preflight(path, newClient());
        expect(res.status, path).toBe(204);
        expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
        expect(res.headers.get('access-control-allow-methods'), path).toContain('POST');
        expect(res.headers.get('access-control-allow-headers')?.toLowerCase(), path).toContain(
          'content-type',
        );
        expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
      }
    },
  );

  scriptTest(
    'answers carry Access-Control-Allow-Origin, errors and 429 included, and expose Retry-After',
    async ({ webview: { url, post } }) => {
      const client = newClient();
      const refused = await post('oauth/exchange', FAKE_CODE, client);
      expect(refused.status).toBe(400);
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');
      for (let i = 1; i < 20; i++) expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(400);
      const limited = await post('oauth/exchange', FAKE_CODE, client);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('access-control-allow-origin')).toBe('*');
      expect(limited.headers.get('access-control-expose-headers')).toContain('Retry-After');
      const jwks = await fetch(url('.well-known/jwks.json'), { headers: { origin: WEBVIEW } });
      expect(jwks.status).toBe(200);
      expect(jwks.headers.get('access-control-allow-origin')).toBe('*');
    },
  );

  scriptTest(
    'preflights are not counted: 30 of them leave a client its 20 exchanges',
    async ({ webview: { preflight, post } }) => {
      const client = newClient();
      for (let i = 0; i < 30; i++) expect((await preflight('oauth/exchange', client)).status).toBe(204);
      for (let i = 0; i < 20; i++) expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(400);
      expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(429);
    },
  );

  scriptTest(
    'the browser sign-in routes are navigations, not script calls: no CORS headers',
    async ({ webview: { url } }) => {
      const res = await fetch(`${url('auth/github')}?redirect_uri=myapp://auth`, {
        headers: { origin: WEBVIEW },
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    },
  );
});
