/**
 * The auth-app users admin routes (contract §4): list, disable and delete for members with
 * write and for project keys whose auth capability names the app (a site's managed key at
 * admin among them); everyone else refused, the server key a client-level site holds included.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { type ApiClient, type ApiResponse, api, createAccount, uniqueName } from '../helpers/api';
import { createTestAuthApp } from '../helpers/oauth';
import { oauthTest } from '../helpers/oauth-fixtures';
import { STAND_IN_ISSUER } from '../helpers/provider-stand-in';

type UserRow = { id: string; email: string; disabled: boolean; last_sign_in_at: string | null };

/** The oauthTest fixtures, with the file app's users route and a way to make its users. */
const it = oauthTest.extend<{
  $file: {
    /** GET the users of the file's app (or `appRef`) as `client`. */
    users: (client: ApiClient, appRef?: string) => Promise<ApiResponse<{ users: UserRow[] }>>;
    /** Signs in the Google account `email` (a fresh one by default) to the file's app. */
    newUser: (email?: string) => Promise<{ id: string; refresh: string }>;
  };
}>({
  users: [
    async ({ app }, use) =>
      use((client, appRef = app.id) =>
        client.get<{ users: UserRow[] }>(`/api/v1/projects/${app.project.id}/auth-apps/${appRef}/users`),
      ),
    { scope: 'file' },
  ],
  newUser: [
    async ({ standIn, app, signIn }, use) =>
      use(async (email = `${uniqueName('u')}@example.test`) => {
        const now = Math.floor(Date.now() / 1000);
        const token = await standIn.signIdToken({
          iss: STAND_IN_ISSUER,
          aud: app.google.web,
          sub: email,
          email,
          email_verified: true,
          iat: now,
          exp: now + 600,
          // Each sign-in presents a token of its own: one signed again within the same second would
          // be byte for byte the one already used, and a used token is refused as a replay.
          jti: randomUUID(),
        });
        const res = await signIn({ id_token: token });
        expect(res.status, res.text).toBe(200);
        const body = res.body as { user: { id: string }; refresh_token: string };
        return { id: body.user.id, refresh: body.refresh_token };
      }),
    { scope: 'file' },
  ],
});

describe('users admin', () => {
  it('lists, disables and deletes users for a write member', async ({
    worker,
    app,
    users,
    newUser,
    refresh,
  }) => {
    const writer = await createAccount(undefined, worker.baseUrl);
    await app.admin.put(`/api/v1/projects/${app.project.id}/members/${writer.id}`, { role: 'write' });
    const client = api(worker.baseUrl, writer.token);
    const user = await newUser();
    const list = await users(client);
    expect(list.status).toBe(200);
    expect(list.body.users.find((u) => u.id === user.id)).toMatchObject({
      disabled: false,
      email_verified: true,
      providers: ['google'],
    });

    const off = await client.patch(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${user.id}`,
      { disabled: true },
    );
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: user.id, disabled: true });
    // Disabling ends the user's sessions.
    expect((await refresh(user.refresh)).status).toBe(400);

    const gone = await client.delete(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${user.id}`,
    );
    expect([gone.status, gone.body]).toEqual([200, { deleted: true }]);
    expect((await users(client)).body.users.find((u) => u.id === user.id)).toBeUndefined();
    expect(
      (await client.delete(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${user.id}`)).status,
    ).toBe(404);
  });

  it('works by app_id too', async ({ app, users }) => {
    expect((await users(app.admin, app.slug)).status).toBe(200);
  });

  it('lists when each user last signed in: a refresh is not a sign-in, signing in again is', async ({
    app,
    users,
    newUser,
    refresh,
  }) => {
    const before = Date.now() - 5_000;
    const user = await newUser();
    const first = (await users(app.admin)).body.users.find((u) => u.id === user.id)?.last_sign_in_at;
    expect(first).toEqual(expect.any(String));
    expect(new Date(first as string).toISOString()).toBe(first);
    expect(Date.parse(first as string)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(first as string)).toBeLessThanOrEqual(Date.now() + 5_000);

    const refreshed = await refresh(user.refresh);
    expect(refreshed.status, refreshed.text).toBe(200);
    expect((await users(app.admin)).body.users.find((u) => u.id === user.id)?.last_sign_in_at).toBe(first);

    const email = (await users(app.admin)).body.users.find((u) => u.id === user.id)?.email;
    expect((await newUser(email)).id).toBe(user.id);
    const again = (await users(app.admin)).body.users.find((u) => u.id === user.id)?.last_sign_in_at;
    expect(Date.parse(again as string)).toBeGreaterThan(Date.parse(first as string));
  });

  it('a key whose auth capability names this app may administer its users', async ({
    worker,
    app,
    users,
    newUser,
  }) => {
    const key = await app.admin.post<{ key: string }>(`/api/v1/projects/${app.project.id}/api-keys`, {
      name: 'users-admin',
      capabilities: { auth: [app.id] },
    });
    const client = api(worker.baseUrl, key.body.key);
    const user = await newUser();
    expect((await users(client)).status).toBe(200);
    expect((await users(client, app.slug)).status).toBe(200);
    const off = await client.patch(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${user.id}`,
      { disabled: true },
    );
    expect(off.status).toBe(200);
    expect(
      (await client.delete(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${user.id}`)).status,
    ).toBe(200);
    // The key cannot change the app itself.
    expect(
      (await client.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`, { enabled: false }))
        .status,
    ).toBe(403);
  });

  it("a site connected at client cannot list, disable or delete the app's end users with the server key it holds; a site at admin can with its managed key", async ({
    app,
    users,
    newUser,
  }) => {
    // Regression (issue 38): SERVICE_AUTH_SERVER_KEY, which every client-level site is handed,
    // administered the app's users although that is granted only at admin (docs/auth-service.md).
    const base = `/api/v1/projects/${app.project.id}`;
    const site = await app.admin.post<{ id: string }>(`${base}/sites`, { slug: uniqueName('s') });
    const connect = (level: string) =>
      app.admin.post(`${base}/sites/${site.body.id}/connections`, {
        kind: 'auth_app',
        resource_id: app.id,
        level,
      });
    expect((await connect('client')).status).toBe(201);
    const vars = async () =>
      (await app.admin.get<{ vars: Record<string, string> }>(`${base}/sites/${site.body.id}/env/effective`))
        .body.vars;
    const serverKey = (await vars()).SERVICE_AUTH_SERVER_KEY as string;
    expect(serverKey).toMatch(/^tth_sk_/);
    const user = await newUser();
    const asKey = api(app.admin.baseUrl, serverKey);
    const userPath = `${base}/auth-apps/${app.id}/users/${user.id}`;
    expect((await users(asKey)).status).toBe(403);
    expect((await users(asKey, app.slug)).status).toBe(403);
    expect((await asKey.patch(userPath, { disabled: true })).status).toBe(403);
    expect((await asKey.delete(userPath)).status).toBe(403);
    const still = (await users(app.admin)).body.users.find((u) => u.id === user.id);
    expect(still).toMatchObject({ disabled: false });

    expect((await connect('admin')).status).toBe(201);
    const managed = (await vars()).PLATFORM_API_KEY as string;
    expect(managed).toMatch(/^tth_pk_/);
    const asSite = api(app.admin.baseUrl, managed);
    expect((await users(asSite)).status).toBe(200);
    expect((await asSite.patch(userPath, { disabled: true })).status).toBe(200);
    // The server key stays an introspection key at admin too.
    expect((await users(api(app.admin.baseUrl, (await vars()).SERVICE_AUTH_SERVER_KEY))).status).toBe(403);
  });

  it('keys without that capability, read members and outsiders are refused', async ({
    worker,
    app,
    users,
  }) => {
    const second = await app.admin.post<{ id: string }>(`/api/v1/projects/${app.project.id}/auth-apps`, {
      app_id: uniqueName('app'),
    });
    const otherApp = await app.admin.post<{ key: string }>(`/api/v1/projects/${app.project.id}/api-keys`, {
      name: 'other-app',
      capabilities: { auth: [second.body.id] },
    });
    const storage = await app.admin.post<{ key: string }>(`/api/v1/projects/${app.project.id}/api-keys`, {
      name: 'storage',
      capabilities: { storage: true },
    });
    expect((await users(api(worker.baseUrl, otherApp.body.key))).status).toBe(403);
    expect((await users(api(worker.baseUrl, storage.body.key))).status).toBe(403);
    const reader = await createAccount(undefined, worker.baseUrl);
    await app.admin.put(`/api/v1/projects/${app.project.id}/members/${reader.id}`, { role: 'read' });
    expect((await users(api(worker.baseUrl, reader.token))).status).toBe(403);
    const outsider = await createAccount(undefined, worker.baseUrl);
    expect((await users(api(worker.baseUrl, outsider.token))).status).toBe(404);
    expect((await users(api(worker.baseUrl))).status).toBe(401);
  });

  it('a user of another app, or a user id that is not a uuid, is 404', async ({ worker, app, newUser }) => {
    const other = await createTestAuthApp(worker.baseUrl);
    const user = await newUser();
    expect(
      (
        await other.admin.patch(
          `/api/v1/projects/${other.project.id}/auth-apps/${other.id}/users/${user.id}`,
          { disabled: true },
        )
      ).status,
    ).toBe(404);
    expect(
      (await app.admin.delete(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/not-a-uuid`))
        .status,
    ).toBe(404);
  });
});
