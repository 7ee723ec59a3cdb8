/**
 * An auth app's lifecycle (contract §12): GET one app; DELETE (admin) removes its connections
 * with live patches, ends its users' sessions and frees its app_id; a server-key rotation
 * delivers the new key (reason rotate) and the old one stops working at once, while the new one
 * introspects for that app and no other; a PATCH changes only what it names, also
 * when two arrive at once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createAccount } from '../helpers/api';
import { deliveriesOf, effectiveVars, type SeededProject, seedProject } from '../helpers/connections';
import type { TestAuthApp } from '../helpers/oauth';
import { type OAuthFixtures, oauthTest } from '../helpers/oauth-fixtures';

let p: SeededProject;
const appPath = (id = p.authApps[0]?.id) => `/api/v1/projects/${p.project.id}/auth-apps/${id}`;

beforeAll(async () => {
  p = await seedProject(api().baseUrl, 1, { authApps: 2 });
});

describe('one auth app', () => {
  it('GET answers the app as the listing shows it; an app of another project is 404', async () => {
    const one = await p.as.get(appPath());
    expect(one.status, one.text).toBe(200);
    const listed = await p.as.get<{ auth_apps: unknown[] }>(`/api/v1/projects/${p.project.id}/auth-apps`);
    expect(listed.body.auth_apps).toContainEqual(one.body);
    const other = await seedProject(api().baseUrl, 0, { authApps: 1 });
    expect((await p.as.get(appPath(other.authApps[0]?.id))).status).toBe(404);
  });
});

describe('PATCH changes only what it names', () => {
  it("the CLI's --ios-client-id request keeps the Android client ID", async () => {
    const set = await p.as.patch(appPath(), {
      providers: {
        google: {
          enabled: true,
          client_id: 'web.apps.test',
          client_secret: 's',
          native_client_ids: { ios: 'ios-1', android: 'android-1' },
        },
      },
    });
    expect(set.status, set.text).toBe(200);
    // Exactly what `tether auth provider <app> google --ios-client-id ios-2` sends.
    const cli = await p.as.patch(appPath(), {
      providers: { google: { native_client_ids: { ios: 'ios-2' } } },
    });
    expect(cli.status, cli.text).toBe(200);
    expect((cli.body as { providers: { google: unknown } }).providers.google).toMatchObject({
      enabled: true,
      client_id: 'web.apps.test',
      native_client_ids: { ios: 'ios-2', android: 'android-1' },
    });
  });

  it('PATCHes sent at once each keep their change', async () => {
    const changes = [
      { name: 'Concurrent' },
      { user_limit: 77 },
      { require_issued_nonce: true },
      { allowed_origins: ['myapp://auth'] },
      { providers: { github: { enabled: true, client_id: 'gh-1', client_secret: 'gh-s' } } },
      { providers: { google: { skip_nonce_check: true } } },
    ];
    const answers = await Promise.all(changes.map((body) => p.as.patch(appPath(), body)));
    expect(answers.map((a) => a.status)).toEqual(changes.map(() => 200));
    const after = await p.as.get<
      Record<string, unknown> & { providers: Record<string, Record<string, unknown>> }
    >(appPath());
    expect(after.body).toMatchObject({
      name: 'Concurrent',
      user_limit: 77,
      require_issued_nonce: true,
      allowed_origins: ['myapp://auth'],
    });
    expect(after.body.providers.github).toMatchObject({ client_id: 'gh-1', client_secret_set: true });
    expect(after.body.providers.google).toMatchObject({
      skip_nonce_check: true,
      native_client_ids: { ios: 'ios-2', android: 'android-1' },
    });
  });
});

describe('server key rotation', () => {
  /** The one thing the server key does: introspection (`{active:false}` for a token that is none). */
  const introspect = (key: string, id = p.authApps[0]?.name) =>
    api().post(
      `/v1/${id}/oauth/introspect`,
      { token: 'not-a-token' },
      { headers: { authorization: `Bearer ${key}` } },
    );

  it('delivers a new key with reason rotate; the old key stops working at once, the new one introspects for its app only', async () => {
    const name = p.authApps[0]?.name.toUpperCase().replace(/-/g, '_');
    const before = await effectiveVars(p);
    const old = before.SERVICE_AUTH_SERVER_KEY ?? before[`SERVICE_AUTH_SERVER_KEY_${name}`];
    expect(old).toMatch(/^tth_sk_/);
    expect((await introspect(old as string)).status).toBe(200);

    const rotated = await p.as.post(`${appPath()}/server-key/rotate`);
    expect([rotated.status, rotated.body]).toEqual([200, { rotated: true }]);
    const delivery = (await deliveriesOf(p.site.id)).at(-1);
    expect(delivery?.reason).toBe('rotate');
    expect(delivery?.set_names).toContain(
      before.SERVICE_AUTH_SERVER_KEY ? 'SERVICE_AUTH_SERVER_KEY' : `SERVICE_AUTH_SERVER_KEY_${name}`,
    );
    const after = await effectiveVars(p);
    const next = after.SERVICE_AUTH_SERVER_KEY ?? after[`SERVICE_AUTH_SERVER_KEY_${name}`];
    expect(next).toMatch(/^tth_sk_/);
    expect(next).not.toBe(old);

    expect((await introspect(old as string)).status).toBe(401);
    expect([(await introspect(next as string)).status, (await introspect(next as string)).body]).toEqual([
      200,
      { active: false },
    ]);
    // Never another app's introspection, nor the management API.
    expect((await introspect(next as string, p.authApps[1]?.name)).status).toBe(401);
    expect(
      (
        await api()
          .as(next as string)
          .get(`/api/v1/projects/${p.project.id}/sites`)
      ).status,
    ).toBe(403);
  });

  it('a write member may not rotate it (admin)', async () => {
    const writer = await createAccount();
    expect(
      (await p.as.put(`/api/v1/projects/${p.project.id}/members/${writer.id}`, { role: 'write' })).status,
    ).toBe(200);
    expect((await api().as(writer.token).post(`${appPath()}/server-key/rotate`)).status).toBe(403);
    expect((await api().as(writer.token).delete(appPath())).status).toBe(403);
  });
});

describe('signing key rotation and deletion', () => {
  const kidOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
  const jwks = async ({ worker, app }: Pick<OAuthFixtures, 'worker' | 'app'>) =>
    api(worker.baseUrl).get<{ keys: Array<{ kid: string }> }>(`/v1/${app.slug}/.well-known/jwks.json`);
  const path = (app: TestAuthApp) => `/api/v1/projects/${app.project.id}/auth-apps/${app.id}`;

  oauthTest(
    'signs new tokens with the new key; the JWKS keeps the old one, and old sessions keep refreshing',
    async ({ worker, app, session, refresh }) => {
      const first = await session();
      const oldKid = kidOf(first.access_token);
      const rotated = await app.admin.post<{ kid: string }>(`${path(app)}/signing-key/rotate`);
      expect(rotated.status, rotated.text).toBe(200);
      expect(rotated.body.kid).not.toBe(oldKid);
      const kids = (await jwks({ worker, app })).body.keys.map((k) => k.kid);
      expect(kids).toEqual(expect.arrayContaining([oldKid, rotated.body.kid]));
      expect(kidOf((await session()).access_token)).toBe(rotated.body.kid);
      const refreshed = await refresh(first.refresh_token);
      expect(refreshed.status).toBe(200);
      expect(kidOf(String(refreshed.body.access_token))).toBe(rotated.body.kid);
    },
  );

  oauthTest(
    'DELETE ends every session, takes the JWKS away and frees the app_id',
    async ({ worker, app, session, refresh }) => {
      const live = await session();
      const deleted = await app.admin.delete(path(app));
      expect([deleted.status, deleted.body]).toEqual([200, { deleted: true }]);
      expect((await app.admin.get(path(app))).status).toBe(404);
      expect((await jwks({ worker, app })).status).toBe(404);
      const refused = await refresh(live.refresh_token);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      const again = await app.admin.post(`/api/v1/projects/${app.project.id}/auth-apps`, {
        app_id: app.slug,
      });
      expect(again.status, again.text).toBe(201);
    },
  );
});

describe('deleting a connected app', () => {
  it('removes its connections with a live patch unsetting its variables; the other app stays', async () => {
    const doomed = p.authApps[1];
    const before = await effectiveVars(p);
    const ownNames = Object.keys(before).filter((n) =>
      n.endsWith(`_${doomed?.name.toUpperCase().replace(/-/g, '_')}`),
    );
    expect(ownNames.length).toBeGreaterThan(0);
    expect((await p.as.delete(appPath(doomed?.id))).status).toBe(200);
    const delivery = (await deliveriesOf(p.site.id)).at(-1);
    expect(delivery?.reason).toBe('disconnect');
    expect(delivery?.unset_names).toEqual(expect.arrayContaining(ownNames));
    const after = await effectiveVars(p);
    for (const n of ownNames) expect(after[n]).toBeUndefined();
    expect((await p.as.get(appPath())).status).toBe(200);
  });
});
