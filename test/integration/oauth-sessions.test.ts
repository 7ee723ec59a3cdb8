/**
 * Sessions after sign-in: refresh-token rotation, reuse detection that revokes the family,
 * tokens bound to their app, logout, and disabling a user ending their sessions. Scripts of
 * any origin may call the token routes, logout and the JWKS (CORS without credentials), as a
 * web app or a webview app (origin capacitor://localhost) does; preflights are answered before
 * rate counting, and the browser-redirect routes stay navigation-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  newClient,
  oneTimeCode,
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

interface Session {
  access_token: string;
  refresh_token: string;
  user: { id: string };
}

const exchange = (body: unknown) =>
  api(worker.baseUrl).post(`/v1/${app.slug}/oauth/exchange`, body, { headers: asClient() });

describe('refresh and logout', () => {
  const refresh = (token: string) =>
    api(worker.baseUrl).post(`/v1/${app.slug}/oauth/refresh`, { refresh_token: token });

  async function session(): Promise<Session> {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const res = await exchange({ code, code_verifier: verifier });
    expect(res.status).toBe(200);
    return res.body as unknown as Session;
  }

  it('rotates the refresh token and returns a new session', async () => {
    const first = await session();
    const res = await refresh(first.refresh_token);
    expect(res.status, res.text).toBe(200);
    const next = res.body as unknown as Session;
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(next.user.id).toBe(first.user.id);
    expect((await refresh(next.refresh_token)).status).toBe(200);
  });

  it('reusing a rotated refresh token revokes the whole family', async () => {
    const first = await session();
    const second = (await refresh(first.refresh_token)).body as unknown as Session;
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ code: 'invalid_grant' });
    // The legitimate holder's newer token died with the family.
    expect((await refresh(second.refresh_token)).status).toBe(400);
  });

  it('a refresh token of another app is refused', async () => {
    const first = await session();
    const other = await createTestAuthApp(worker.baseUrl);
    const res = await api(worker.baseUrl).post(`/v1/${other.slug}/oauth/refresh`, {
      refresh_token: first.refresh_token,
    });
    expect(res.status).toBe(400);
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('logout ends the session', async () => {
    const first = await session();
    const out = await api(worker.baseUrl).post(`/v1/${app.slug}/logout`, {
      refresh_token: first.refresh_token,
    });
    expect([out.status, out.body]).toEqual([200, { ok: true }]);
    expect((await refresh(first.refresh_token)).status).toBe(400);
  });

  it('disabling a user ends their sessions: refresh is refused', async () => {
    const first = await session();
    await app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${first.user.id}`, {
      disabled: true,
    });
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(400);
  });

  it('refresh while the app is disabled is 403 and spares the token; an unknown app is 404', async () => {
    const other = await createTestAuthApp(worker.baseUrl);
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, other.slug);
    const signedIn = await api(worker.baseUrl).post(
      `/v1/${other.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(signedIn.status).toBe(200);
    const token = (signedIn.body as unknown as Session).refresh_token;
    const refreshOther = (t: string) =>
      api(worker.baseUrl).post(`/v1/${other.slug}/oauth/refresh`, { refresh_token: t });
    const appPath = `/api/v1/projects/${other.project.id}/auth-apps/${other.id}`;

    expect((await other.admin.patch(appPath, { enabled: false })).status).toBe(200);
    const refused = await refreshOther(token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'this app is disabled' });
    expect((await other.admin.patch(appPath, { enabled: true })).status).toBe(200);
    expect((await refreshOther(token)).status).toBe(200);

    for (const slug of ['no-such-app-here', 'UPPER']) {
      const unknown = await api(worker.baseUrl).post(`/v1/${slug}/oauth/refresh`, { refresh_token: token });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'unknown app' });
    }
  });
});

describe('scripts of any origin (CORS, no credentials)', () => {
  const WEBVIEW = 'capacitor://localhost';
  const url = (path: string) => `${worker.baseUrl}/v1/${app.slug}/${path}`;

  function preflight(path: string, client: string) {
    return fetch(url(path), {
      method: 'OPTIONS',
      headers: {
        origin: WEBVIEW,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
        ...asClient(client),
      },
    });
  }

  function post(path: string, body: unknown, client: string) {
    return fetch(url(path), {
      method: 'POST',
      headers: { origin: WEBVIEW, 'content-type': 'application/json', ...asClient(client) },
      body: JSON.stringify(body),
    });
  }

  const FAKE_CODE = { code: 'A'.repeat(43), code_verifier: 'v'.repeat(43) };

  it('a preflight of each token route and logout is 204 allowing POST with a JSON body from any origin', async () => {
    for (const path of ['oauth/exchange', 'oauth/id-token', 'oauth/refresh', 'logout']) {
      const res = await preflight(path, newClient());
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-methods'), path).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase(), path).toContain('content-type');
      expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
  });

  it('answers carry Access-Control-Allow-Origin, errors and 429 included, and expose Retry-After', async () => {
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
  });

  it('preflights are not counted: 30 of them leave a client its 20 exchanges', async () => {
    const client = newClient();
    for (let i = 0; i < 30; i++) expect((await preflight('oauth/exchange', client)).status).toBe(204);
    for (let i = 0; i < 20; i++) expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(400);
    expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(429);
  });

  it('the browser sign-in routes are navigations, not script calls: no CORS headers', async () => {
    const res = await fetch(`${url('auth/github')}?redirect_uri=myapp://auth`, {
      headers: { origin: WEBVIEW },
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
