/**
 * PATCH an auth app (contract §4): name, providers and the allowed-origin rules, each refusal a
 * 400 that says why with nothing changed.
 */
import { describe, expect } from 'vitest';
import { createOwner, uniqueName } from '../helpers/api';
import { metadata } from '../helpers/connections';
import type { TestAuthApp } from '../helpers/oauth';
import { oauthTestWith } from '../helpers/oauth-fixtures';

const it = oauthTestWith({ appOptions: { origins: ['myapp://auth'] } });

describe('PATCH an auth app', () => {
  const path = (app: TestAuthApp) => `/api/v1/projects/${app.project.id}/auth-apps/${app.id}`;

  it.for<[string, RegExp]>([
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
    // A browser reads this host as 127.0.0.1, and these schemes belong to the browser or the OS.
    ['https://0x7f.0.0.1', /no IP address/],
    ['intent://scan', /intent scheme is refused/],
    ['chrome://settings', /chrome scheme is refused/],
    ['chrome-extension://abc', /chrome-extension scheme is refused/],
  ])(
    'refuses the origin %s with a 400 that says why, changing nothing',
    async ([origin, reason], { app }) => {
      const res = await app.admin.patch(path(app), {
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
    },
  );

  it('§9: the loopback origins may be registered for development, without their port', async ({ app }) => {
    const res = await app.admin.patch(path(app), {
      allowed_origins: ['http://127.0.0.1:8080', 'http://[::1]', 'http://LOCALHOST:3000/', 'myapp://auth'],
    });
    expect(res.status, res.text).toBe(200);
    expect((res.body as { allowed_origins: string[] }).allowed_origins).toEqual([
      'http://127.0.0.1',
      'http://[::1]',
      'http://localhost',
      'myapp://auth',
    ]);
    const back = await app.admin.patch(path(app), { allowed_origins: ['myapp://auth'] });
    expect(back.status).toBe(200);
  });

  it('normalises and de-duplicates origins', async ({ app }) => {
    const res = await app.admin.patch(path(app), {
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

  it('never echoes secrets, keeps a secret when omitted, stores it encrypted', async ({ app }) => {
    const res = await app.admin.patch(path(app), {
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
    const kept = await app.admin.patch(path(app), {
      providers: { github: { enabled: false, client_id: 'gh-2' } },
    });
    expect(kept.body).toMatchObject({
      providers: { github: { enabled: false, client_id: 'gh-2', client_secret_set: true } },
    });
    const [row] = await metadata('SELECT provider_secrets_ciphertext FROM auth_apps WHERE id = $1', [app.id]);
    expect(row?.provider_secrets_ciphertext).not.toMatch(/brand-new-google-secret|github-secret/);
  });

  it('enabling a provider without any client secret is refused', async ({ worker }) => {
    const fresh = await createOwner(worker.baseUrl);
    const created = await fresh.admin.post<{ id: string }>(`/api/v1/projects/${fresh.projectId}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    const res = await fresh.admin.patch(`/api/v1/projects/${fresh.projectId}/auth-apps/${created.body.id}`, {
      providers: { github: { enabled: true, client_id: 'x' } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { field: 'providers.github.client_secret' } });
  });

  it('{enabled:false} alone turns a provider off and keeps its client id and secret; a new provider needs its client id', async ({
    worker,
  }) => {
    const fresh = await createOwner(worker.baseUrl);
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

  it('sets the user limit and native client IDs, removes a provider with null', async ({ app }) => {
    const res = await app.admin.patch(path(app), {
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

  it('unknown fields, an app of another project and an unknown app are refused', async ({ worker, app }) => {
    expect((await app.admin.patch(path(app), { secret_sauce: true })).status).toBe(400);
    const other = await createOwner(worker.baseUrl);
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
