/**
 * Authorization beyond the matrix (contract §3–§5): the error body of a refusal, keys of another
 * project or revoked, who may grant or remove an owner, the caller and what the path names
 * checked before the body, and the console cookie refused from another site.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject, type TestProject, uniqueName } from '../helpers/api';
import { type Caller, type CallerHeaders, makeCallers, requestAs } from '../helpers/callers';

let headers: CallerHeaders;
let project: TestProject;
let ownerToken: string;

const raw = (caller: Caller, method: string, path: string, body?: unknown) =>
  requestAs(headers, caller, method, path, body);

beforeAll(async () => {
  ({ headers, project, ownerToken } = await makeCallers());
});

describe('error bodies', () => {
  it('an unauthenticated request gets the management error shape', async () => {
    const res = await raw('anonymous', 'GET', `/projects/${project.id}`);
    expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it('a project API key of another project gets 404 for this one', async () => {
    const other = await createProject(ownerToken);
    const key = await api()
      .as(ownerToken)
      .post<{ key: string }>(`/api/v1/projects/${other.id}/api-keys`, {
        name: 'elsewhere',
        capabilities: { databases: true },
      });
    const res = await fetch(`${inject('baseUrl')}/api/v1/projects/${project.id}/databases`, {
      headers: { authorization: `Bearer ${key.body.key}` },
    });
    expect(res.status).toBe(404);
  });

  it('a revoked API key gets 401', async () => {
    const as = api().as(ownerToken);
    const key = await as.post<{ id: string; key: string }>(`/api/v1/projects/${project.id}/api-keys`, {
      name: 'revoke me',
      capabilities: { storage: true },
    });
    expect((await as.delete(`/api/v1/projects/${project.id}/api-keys/${key.body.id}`)).status).toBe(200);
    const res = await fetch(`${inject('baseUrl')}/api/v1/projects/${project.id}/buckets`, {
      headers: { authorization: `Bearer ${key.body.key}` },
    });
    expect(res.status).toBe(401);
  });

  it('only an owner may grant the owner role', async () => {
    const target = await createAccount();
    const res = await raw('admin', 'PUT', `/projects/${project.id}/members/${target.id}`, { role: 'owner' });
    expect(res.status).toBe(403);
    const byOwner = await raw('owner', 'PUT', `/projects/${project.id}/members/${target.id}`, {
      role: 'owner',
    });
    expect(byOwner.status).toBe(200);
  });

  it('the last owner cannot be removed or demoted', async () => {
    const owner = await createAccount();
    const own = await createProject(owner.token);
    const as = api().as(owner.token);
    expect((await as.delete(`/api/v1/projects/${own.id}/members/${owner.id}`)).status).toBe(409);
    expect((await as.put(`/api/v1/projects/${own.id}/members/${owner.id}`, { role: 'admin' })).status).toBe(
      409,
    );
  });

  it('the caller is checked before the body: no credentials is 401 and a key on a connection route 403, whatever the body', async () => {
    const siteId = '11111111-1111-1111-1111-111111111111';
    const conns = `/projects/${project.id}/sites/${siteId}/connections`;
    for (const [method, path] of [
      ['POST', conns],
      ['PUT', conns],
      ['POST', '/projects'],
      ['POST', `/projects/${project.id}/sites`],
      ['POST', '/accounts'],
    ] as const) {
      for (const body of [undefined, {}, { kind: 'nonsense' }]) {
        expect((await raw('anonymous', method, path, body)).status, `${method} ${path}`).toBe(401);
        expect((await raw('malformed', method, path, body)).status, `${method} ${path}`).toBe(401);
      }
    }
    for (const body of [undefined, {}, { kind: 'nonsense' }]) {
      expect((await raw('key_caps', 'POST', conns, body)).status).toBe(403);
      expect((await raw('key_caps', 'PUT', conns, body)).status).toBe(403);
    }
  });

  it('what the path names is checked before the body: a role too low is 403 and an unknown site, service or auth app 404, whatever the body', async () => {
    const as = api().as(ownerToken);
    const site = await as.post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, {
      slug: uniqueName('s'),
    });
    const db = await as.post<{ id: string }>(`/api/v1/projects/${project.id}/databases`, {
      name: uniqueName('d'),
      engine: 'postgresql',
    });
    const app = await as.post<{ id: string }>(`/api/v1/projects/${project.id}/auth-apps`, {
      app_id: uniqueName('a'),
    });
    expect([site.status, db.status, app.status]).toEqual([201, 201, 201]);
    const unknown = '11111111-1111-1111-1111-111111111111';
    const p = `/projects/${project.id}`;
    const badBody = { nonsense: true };
    // [method, path that exists, the same path naming something unknown]
    const routes = [
      ['POST', `${p}/sites/${site.body.id}/connections`, `${p}/sites/${unknown}/connections`],
      ['PUT', `${p}/sites/${site.body.id}/connections`, `${p}/sites/${unknown}/connections`],
      ['PUT', `${p}/sites/${site.body.id}/env`, `${p}/sites/${unknown}/env`],
      ['POST', `${p}/sites/${site.body.id}/deploys`, `${p}/sites/${unknown}/deploys`],
      ['PUT', `/databases/${db.body.id}/sites`, `/databases/${unknown}/sites`],
      ['PATCH', `${p}/auth-apps/${app.body.id}`, `${p}/auth-apps/${unknown}`],
    ] as const;
    for (const [method, known, missing] of routes) {
      const body = method === 'POST' && known.endsWith('/deploys') ? ['not an object'] : badBody;
      expect((await raw('owner', method, known, body)).status, `${method} ${known}`).toBe(400);
      expect((await raw('owner', method, missing, body)).status, `${method} ${missing}`).toBe(404);
      expect((await raw('read', method, known, body)).status, `read: ${method} ${known}`).toBe(403);
    }
    for (const [method, path] of [
      ['POST', `${p}/sites`],
      ['POST', `${p}/databases`],
      ['POST', `${p}/auth-apps`],
    ] as const) {
      expect((await raw('read', method, path, badBody)).status, `read: ${method} ${path}`).toBe(403);
    }
    for (const [method, path] of [
      ['POST', `${p}/api-keys`],
      ['PUT', `${p}/members/${unknown}`],
    ] as const) {
      expect((await raw('write', method, path, badBody)).status, `write: ${method} ${path}`).toBe(403);
      expect((await raw('admin', method, path, badBody)).status, `admin: ${method} ${path}`).toBe(400);
    }
  });

  it('the console cookie cannot make a change from another site (403); a Bearer session can', async () => {
    const session = headers.session?.authorization?.slice(7) as string;
    const create = (extra: Record<string, string>) =>
      fetch(`${inject('baseUrl')}/api/v1/projects`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...extra },
        body: JSON.stringify({ name: uniqueName('csrf') }),
      });
    const forged = await create({ cookie: `tether_session=${session}`, origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    const blind = await create({ cookie: `tether_session=${session}`, 'sec-fetch-site': 'cross-site' });
    expect(blind.status).toBe(403);
    const own = await create({ cookie: `tether_session=${session}`, origin: inject('baseUrl') });
    expect(own.status).toBe(201);
    const bearer = await create({ authorization: `Bearer ${session}`, origin: 'https://evil.example' });
    expect(bearer.status).toBe(201);
    const read = await fetch(`${inject('baseUrl')}/api/v1/account`, {
      headers: { cookie: `tether_session=${session}`, origin: 'https://evil.example' },
    });
    expect(read.status).toBe(200);
  });

  it('a session is accepted as the console cookie', async () => {
    const res = await fetch(`${inject('baseUrl')}/api/v1/account`, {
      headers: { cookie: `tether_session=${headers.session?.authorization?.slice(7)}` },
    });
    expect(res.status).toBe(200);
  });
});
