/**
 * contract §2: no route answers 500 to a request a client can build. A NUL character cannot be
 * stored by Postgres; wherever one arrives (a path segment, a body field) the answer is a 4xx
 * in the route family's error shape, and nothing is written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, api, createAccount, createProject, uniqueName } from '../helpers/api';

let as: ApiClient;
let project: { id: string };
let siteId: string;
let authAppId: string;

beforeAll(async () => {
  const account = await createAccount();
  as = api(undefined, account.token);
  project = await createProject(account.token);
  const site = await as.post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, {
    slug: uniqueName('web'),
  });
  siteId = site.body.id;
  const app = await as.post<{ id: string }>(`/api/v1/projects/${project.id}/auth-apps`, {
    app_id: uniqueName('nul'),
  });
  authAppId = app.body.id;
});

/** A management error: `{error:{code,message}}` with a 4xx status. */
function expectManagementRefusal(res: { status: number; body: unknown }): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  const error = (res.body as { error: { code: unknown; message: unknown } }).error;
  expect(typeof error.code).toBe('string');
  expect(typeof error.message).toBe('string');
}

describe('a NUL character in the request', () => {
  it('in a project reference or an auth app id answers 404, not 500', async () => {
    for (const path of [
      '/api/v1/projects/%00/connections',
      `/api/v1/projects/%00/sites/${siteId}/connections`,
      `/api/v1/projects/a%00b/sites/${siteId}/env`,
      `/api/v1/projects/${project.id}/auth-apps/%00/users`,
    ]) {
      const res = await as.get(path);
      expect(res.status, path).toBe(404);
      expectManagementRefusal(res);
    }
    const patch = await as.patch(`/api/v1/projects/${project.id}/auth-apps/%00`, { enabled: false });
    expect(patch.status).toBe(404);
    const del = await as.delete(`/api/v1/projects/${project.id}/auth-apps/%00/users/%00`);
    expect(del.status).toBe(404);
  });

  it('in a body field is refused with a 4xx and stores nothing', async () => {
    const before = await as.get<{ auth_apps: unknown[] }>(`/api/v1/projects/${project.id}/auth-apps`);
    const patch = await as.patch(`/api/v1/projects/${project.id}/auth-apps/${authAppId}`, {
      providers: { google: { enabled: true, client_id: 'client\u0000id', client_secret: 's' } },
    });
    expectManagementRefusal(patch);
    const vars = await as.put(`/api/v1/projects/${project.id}/sites/${siteId}/env`, {
      vars: { GREETING: 'hello\u0000world' },
    });
    expectManagementRefusal(vars);
    const after = await as.get<{ auth_apps: unknown[] }>(`/api/v1/projects/${project.id}/auth-apps`);
    expect(after.body).toEqual(before.body);
    expect((await as.get(`/api/v1/projects/${project.id}/sites/${siteId}/env`)).body).toEqual({ vars: {} });
  });

  it('on the auth service answers its own error shape, not 500', async () => {
    const anonymous = api();
    for (const [path, body] of [
      ['/v1/%00/oauth/exchange', { code: 'c', code_verifier: 'v'.repeat(43) }],
      ['/v1/%00/oauth/refresh', { refresh_token: 'r\u0000' }],
      ['/v1/%00/logout', { refresh_token: 'r' }],
    ] as const) {
      const res = await anonymous.post(path, body);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(typeof (res.body as { error: unknown }).error).toBe('string');
    }
    // A path that cannot name an app names no app: 404, as for any unknown one.
    const jwks = await anonymous.get('/v1/%00/.well-known/jwks.json');
    expect([jwks.status, jwks.body]).toEqual([404, { error: 'unknown app' }]);
  });
});
