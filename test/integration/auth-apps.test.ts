/**
 * The auth-app management routes (contract §4): create with server key and initial connection,
 * list without secrets. PATCH: auth-apps-patch.test.ts; the users admin routes:
 * auth-app-users.test.ts.
 */
import { describe, expect } from 'vitest';
import { api, createAccount, createOwner, uniqueName } from '../helpers/api';
import { metadata } from '../helpers/connections';
import { createTestAuthApp } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';

describe('creating and listing auth apps', () => {
  it('creates an app with a server key that is stored encrypted and never shown', async ({ worker }) => {
    const { admin, projectId } = await createOwner(worker.baseUrl);
    const slug = uniqueName('app');
    const res = await admin.post(`/api/v1/projects/${projectId}/auth-apps`, { app_id: slug, name: 'Mobile' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      app_id: slug,
      name: 'Mobile',
      enabled: true,
      allowed_origins: [],
      user_limit: null,
      require_issued_nonce: false,
      app_links: { ios_app_ids: [], android_package_names: [] },
      providers: {},
      auth_url: worker.baseUrl,
      issuer: `${worker.baseUrl}/v1/${slug}`,
      created_at: expect.stringMatching(/Z$/),
    });
    expect(res.text).not.toMatch(/tth_sk_/);
    const [row] = await metadata('SELECT server_key_ciphertext FROM auth_apps WHERE id = $1', [
      (res.body as { id: string }).id,
    ]);
    expect(row?.server_key_ciphertext).toMatch(/^[^.]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(row?.server_key_ciphertext).not.toMatch(/tth_sk_/);
  });

  it('app_id is unique across the whole service (409) and follows the name rule (400 naming the field)', async ({
    worker,
  }) => {
    const a = await createOwner(worker.baseUrl);
    const b = await createOwner(worker.baseUrl);
    const slug = uniqueName('app');
    expect((await a.admin.post(`/api/v1/projects/${a.projectId}/auth-apps`, { app_id: slug })).status).toBe(
      201,
    );
    const taken = await b.admin.post(`/api/v1/projects/${b.projectId}/auth-apps`, { app_id: slug });
    expect(taken.status).toBe(409);
    const bad = await b.admin.post(`/api/v1/projects/${b.projectId}/auth-apps`, { app_id: 'Bad Name' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'app_id' } });
  });

  it('an app_id whose variable form another app of the project has is refused (409 NAME_CONFLICT), nothing made', async ({
    worker,
  }) => {
    const { admin, projectId } = await createOwner(worker.baseUrl);
    const base = uniqueName('app');
    const first = `${base}-x`;
    expect((await admin.post(`/api/v1/projects/${projectId}/auth-apps`, { app_id: first })).status).toBe(201);
    const clash = await admin.post(`/api/v1/projects/${projectId}/auth-apps`, { app_id: `${base}_x` });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ error: { code: 'NAME_CONFLICT', field: 'app_id' } });
    expect((clash.body as { error: { message: string } }).error.message).toContain(first);
    const listed = await admin.get<{ auth_apps: Array<{ app_id: string }> }>(
      `/api/v1/projects/${projectId}/auth-apps`,
    );
    expect(listed.body.auth_apps.map((a) => a.app_id)).toEqual([first]);
    // Another project may hold it: variables are per site, and its sites see only its own apps.
    const other = await createOwner(worker.baseUrl);
    expect(
      (await other.admin.post(`/api/v1/projects/${other.projectId}/auth-apps`, { app_id: `${base}_x` }))
        .status,
    ).toBe(201);
  });

  it('a new app in a project with exactly one site is connected to it at client; with two sites, to nothing', async ({
    worker,
  }) => {
    const one = await createOwner(worker.baseUrl);
    const site = await one.admin.post<{ id: string }>(`/api/v1/projects/${one.projectId}/sites`, {
      slug: 'web',
    });
    const app = await one.admin.post<{ id: string }>(`/api/v1/projects/${one.projectId}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    const rows = await metadata('SELECT site_id, kind, level FROM connections WHERE resource_id = $1', [
      app.body.id,
    ]);
    expect(rows).toEqual([{ site_id: site.body.id, kind: 'auth_app', level: 'client' }]);

    const two = await createOwner(worker.baseUrl);
    await two.admin.post(`/api/v1/projects/${two.projectId}/sites`, { slug: 'web' });
    await two.admin.post(`/api/v1/projects/${two.projectId}/sites`, { slug: 'admin' });
    const other = await two.admin.post<{ id: string }>(`/api/v1/projects/${two.projectId}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    expect((await metadata('SELECT 1 FROM connections WHERE resource_id = $1', [other.body.id])).length).toBe(
      0,
    );
  });

  it('lists apps for the read role; a project API key gets 403', async ({ worker }) => {
    const app = await createTestAuthApp(worker.baseUrl);
    const reader = await createAccount(undefined, worker.baseUrl);
    await app.admin.put(`/api/v1/projects/${app.project.id}/members/${reader.id}`, { role: 'read' });
    const list = await api(worker.baseUrl, reader.token).get<{ auth_apps: Array<Record<string, unknown>> }>(
      `/api/v1/projects/${app.project.id}/auth-apps`,
    );
    expect(list.status).toBe(200);
    expect(list.body.auth_apps).toHaveLength(1);
    expect(list.body.auth_apps[0]).toMatchObject({
      app_id: app.slug,
      providers: {
        google: {
          enabled: true,
          client_id: app.google.web,
          client_secret_set: true,
          native_client_ids: { ios: app.google.ios, android: app.google.android },
        },
        github: { enabled: true, client_id: app.github.clientId, client_secret_set: true },
      },
    });
    expect(list.text).not.toMatch(/google-secret|github-secret|tth_sk_/);
    const write = await api(worker.baseUrl, reader.token).post(
      `/api/v1/projects/${app.project.id}/auth-apps`,
      { app_id: uniqueName('app') },
    );
    expect(write.status).toBe(403);
    const key = await app.admin.post<{ key: string }>(`/api/v1/projects/${app.project.id}/api-keys`, {
      name: 'k',
      capabilities: { auth: [app.id] },
    });
    expect(
      (await api(worker.baseUrl, key.body.key).get(`/api/v1/projects/${app.project.id}/auth-apps`)).status,
    ).toBe(403);
  });
});
