/**
 * The auth-app management routes (CONTRACT §4): create with server key and initial connection,
 * list without secrets, PATCH with the allowed-origin rules (each refusal a 400 that says why,
 * nothing changed). The users admin routes are in auth-app-users.test.ts.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiClient, api, createAccount, createProject, uniqueName } from '../helpers/api';
import { createTestAuthApp, startOAuthWorker, type TestAuthApp } from '../helpers/oauth';
import { type ProviderStandIn, startProviderStandIn } from '../helpers/provider-stand-in';
import type { ExtraWorker } from '../helpers/worker';

let standIn: ProviderStandIn;
let worker: ExtraWorker;
let db: pg.Client;

beforeAll(async () => {
  standIn = await startProviderStandIn();
  worker = await startOAuthWorker(standIn);
  db = new pg.Client({ connectionString: inject('metadataUrl') });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await worker?.stop();
  await standIn?.close();
});

async function owner(): Promise<{ admin: ApiClient; projectId: string; token: string }> {
  const account = await createAccount(undefined, worker.baseUrl);
  const project = await createProject(account.token, undefined, worker.baseUrl);
  return { admin: api(worker.baseUrl, account.token), projectId: project.id, token: account.token };
}

describe('creating and listing auth apps', () => {
  it('creates an app with a server key that is stored encrypted and never shown', async () => {
    const { admin, projectId } = await owner();
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
      providers: {},
      auth_url: `${worker.baseUrl}/v1/${slug}`,
      created_at: expect.stringMatching(/Z$/),
    });
    expect(res.text).not.toMatch(/tth_sk_/);
    const row = await db.query('SELECT server_key_ciphertext FROM auth_apps WHERE id = $1', [
      (res.body as { id: string }).id,
    ]);
    expect(row.rows[0].server_key_ciphertext).toMatch(/^[^.]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(row.rows[0].server_key_ciphertext).not.toMatch(/tth_sk_/);
  });

  it('app_id is unique across the whole service (409) and follows the name rule (400 naming the field)', async () => {
    const a = await owner();
    const b = await owner();
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

  it('an app_id whose variable form another app of the project has is refused (409 NAME_CONFLICT), nothing made', async () => {
    const { admin, projectId } = await owner();
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
    const other = await owner();
    expect(
      (await other.admin.post(`/api/v1/projects/${other.projectId}/auth-apps`, { app_id: `${base}_x` }))
        .status,
    ).toBe(201);
  });

  it('a new app in a project with exactly one site is connected to it at client; with two sites, to nothing', async () => {
    const one = await owner();
    const site = await one.admin.post<{ id: string }>(`/api/v1/projects/${one.projectId}/sites`, {
      slug: 'web',
    });
    const app = await one.admin.post<{ id: string }>(`/api/v1/projects/${one.projectId}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    const rows = await db.query('SELECT site_id, kind, level FROM connections WHERE resource_id = $1', [
      app.body.id,
    ]);
    expect(rows.rows).toEqual([{ site_id: site.body.id, kind: 'auth_app', level: 'client' }]);

    const two = await owner();
    await two.admin.post(`/api/v1/projects/${two.projectId}/sites`, { slug: 'web' });
    await two.admin.post(`/api/v1/projects/${two.projectId}/sites`, { slug: 'admin' });
    const other = await two.admin.post<{ id: string }>(`/api/v1/projects/${two.projectId}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    expect(
      (await db.query('SELECT 1 FROM connections WHERE resource_id = $1', [other.body.id])).rowCount,
    ).toBe(0);
  });

  it('lists apps for the read role; a project API key gets 403', async () => {
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

describe('PATCH an auth app', () => {
  let app: TestAuthApp;
  const path = () => `/api/v1/projects/${app.project.id}/auth-apps/${app.id}`;
  beforeAll(async () => {
    app = await createTestAuthApp(worker.baseUrl, { origins: ['myapp://auth'] });
  });

  it.each([
    ['myapp:///callback', /three slashes/],
    ['myapp://auth/callback', /no path/],
    ['myapp://*', /wildcard never covers a custom scheme/],
    ['javascript://x', /javascript scheme is refused/],
    ['file:///etc/passwd', /file scheme is refused/],
    ['data://x', /data scheme is refused/],
    ['blob://x', /blob scheme is refused/],
    ['about://blank', /about scheme is refused/],
    ['vbscript://x', /vbscript scheme is refused/],
    ['ftp://files.example.com', /ftp scheme is refused/],
    ['http://app.example.com', /https/],
    // Issue 16: a browser reads this host as 127.0.0.1, and these schemes belong to the browser or the OS.
    ['https://0x7f.0.0.1', /no IP address/],
    ['intent://scan', /intent scheme is refused/],
    ['chrome://settings', /chrome scheme is refused/],
    ['chrome-extension://abc', /chrome-extension scheme is refused/],
  ])('refuses the origin %s with a 400 that says why, changing nothing', async (origin, reason) => {
    const res = await app.admin.patch(path(), {
      allowed_origins: ['https://ok.example.com', origin],
      enabled: false,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'allowed_origins[1]' } });
    expect((res.body as { error: { message: string } }).error.message).toMatch(reason);
    const list = await app.admin.get<{ auth_apps: Array<{ allowed_origins: string[]; enabled: boolean }> }>(
      `/api/v1/projects/${app.project.id}/auth-apps`,
    );
    expect(list.body.auth_apps[0]).toMatchObject({ allowed_origins: ['myapp://auth'], enabled: true });
  });

  it('§9: the loopback origins may be registered for development, without their port', async () => {
    const res = await app.admin.patch(path(), {
      allowed_origins: ['http://127.0.0.1:8080', 'http://[::1]', 'http://LOCALHOST:3000/', 'myapp://auth'],
    });
    expect(res.status, res.text).toBe(200);
    expect((res.body as { allowed_origins: string[] }).allowed_origins).toEqual([
      'http://127.0.0.1',
      'http://[::1]',
      'http://localhost',
      'myapp://auth',
    ]);
    const back = await app.admin.patch(path(), { allowed_origins: ['myapp://auth'] });
    expect(back.status).toBe(200);
  });

  it('normalises and de-duplicates origins', async () => {
    const res = await app.admin.patch(path(), {
      allowed_origins: [
        'MyApp://Auth',
        'myapp://auth',
        'https://App.Example.com/',
        'com.example.app://callback',
      ],
    });
    expect(res.status).toBe(200);
    expect((res.body as { allowed_origins: string[] }).allowed_origins).toEqual([
      'myapp://auth',
      'https://app.example.com',
      'com.example.app://callback',
    ]);
  });

  it('never echoes secrets, keeps a secret when omitted, stores it encrypted', async () => {
    const res = await app.admin.patch(path(), {
      providers: {
        google: { enabled: true, client_id: 'new-web-id', client_secret: 'brand-new-google-secret' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/brand-new-google-secret/);
    expect(res.body).toMatchObject({
      providers: {
        google: {
          client_id: 'new-web-id',
          client_secret_set: true,
          native_client_ids: { ios: app.google.ios },
        },
      },
    });
    const kept = await app.admin.patch(path(), {
      providers: { github: { enabled: false, client_id: 'gh-2' } },
    });
    expect(kept.body).toMatchObject({
      providers: { github: { enabled: false, client_id: 'gh-2', client_secret_set: true } },
    });
    const row = await db.query('SELECT provider_secrets_ciphertext FROM auth_apps WHERE id = $1', [app.id]);
    expect(row.rows[0].provider_secrets_ciphertext).not.toMatch(/brand-new-google-secret|github-secret/);
  });

  it('enabling a provider without any client secret is refused', async () => {
    const fresh = await owner();
    const created = await fresh.admin.post<{ id: string }>(`/api/v1/projects/${fresh.projectId}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    const res = await fresh.admin.patch(`/api/v1/projects/${fresh.projectId}/auth-apps/${created.body.id}`, {
      providers: { github: { enabled: true, client_id: 'x' } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { field: 'providers.github.client_secret' } });
  });

  it('{enabled:false} alone turns a provider off and keeps its client id and secret; a new provider needs its client id', async () => {
    const fresh = await owner();
    const created = await fresh.admin.post<{ id: string }>(`/api/v1/projects/${fresh.projectId}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    const appPath = `/api/v1/projects/${fresh.projectId}/auth-apps/${created.body.id}`;
    const missing = await fresh.admin.patch(appPath, { providers: { google: { enabled: false } } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: { field: 'providers.google.client_id' } });
    const on = await fresh.admin.patch(appPath, {
      providers: { google: { enabled: true, client_id: 'web-1', client_secret: 'google-secret-1' } },
    });
    expect(on.status).toBe(200);
    const off = await fresh.admin.patch(appPath, { providers: { google: { enabled: false } } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({
      providers: { google: { enabled: false, client_id: 'web-1', client_secret_set: true } },
    });
    const back = await fresh.admin.patch(appPath, { providers: { google: { enabled: true } } });
    expect(back.body).toMatchObject({ providers: { google: { enabled: true, client_id: 'web-1' } } });
  });

  it('sets the user limit and native client IDs, removes a provider with null', async () => {
    const res = await app.admin.patch(path(), {
      user_limit: 5,
      providers: {
        google: { enabled: true, client_id: 'w', native_client_ids: { ios: null, android: 'and-2' } },
        github: null,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user_limit: 5,
      providers: { google: { native_client_ids: { android: 'and-2' } } },
    });
    expect((res.body as { providers: Record<string, unknown> }).providers.github).toBeUndefined();
    expect(
      (res.body as { providers: { google: { native_client_ids: object } } }).providers.google
        .native_client_ids,
    ).toEqual({ android: 'and-2' });
  });

  it('unknown fields, an app of another project and an unknown app are refused', async () => {
    expect((await app.admin.patch(path(), { secret_sauce: true })).status).toBe(400);
    const other = await owner();
    expect(
      (await other.admin.patch(`/api/v1/projects/${other.projectId}/auth-apps/${app.id}`, { enabled: false }))
        .status,
    ).toBe(404);
    expect(
      (
        await app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${crypto.randomUUID()}`, {
          enabled: false,
        })
      ).status,
    ).toBe(404);
  });
});
