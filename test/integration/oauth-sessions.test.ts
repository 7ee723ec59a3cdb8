/**
 * Sessions after sign-in: refresh-token rotation, reuse detection that revokes the family,
 * tokens bound to their app, logout, and disabling a user ending their sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  oneTimeCode,
  startOAuthWorker,
  type TestAuthApp,
} from '../helpers/oauth';
import { type ProviderStandIn, startProviderStandIn } from '../helpers/provider-stand-in';
import type { ExtraWorker } from '../helpers/worker';

let standIn: ProviderStandIn;
let worker: ExtraWorker;
let app: TestAuthApp;

beforeAll(async () => {
  standIn = await startProviderStandIn();
  worker = await startOAuthWorker(standIn);
  app = await createTestAuthApp(worker.baseUrl);
});

afterAll(async () => {
  await worker?.stop();
  await standIn?.close();
});

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
