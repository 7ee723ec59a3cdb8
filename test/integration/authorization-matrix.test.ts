/**
 * The authorization matrix of CONTRACT §3–§5: for every route, each kind of caller gets exactly
 * one status. Callers: anonymous, malformed header, revoked token, each project role, a
 * non-member, project API keys with and without the route's capability, the operator token
 * and a dashboard session.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject, uniqueName } from '../helpers/api';
import { createDatabase, createSite } from '../helpers/connections';
import { appSession, attackOutcome, databaseUrlOf, plantHashtextextended } from '../helpers/tenant-attack';
import { triggerScheduled } from '../helpers/worker';

type Caller =
  | 'anonymous'
  | 'malformed'
  | 'revoked'
  | 'read'
  | 'write'
  | 'admin'
  | 'owner'
  | 'session'
  | 'non_member'
  | 'key_none'
  | 'key_caps'
  | 'operator';

const CALLERS: Caller[] = [
  'anonymous',
  'malformed',
  'revoked',
  'read',
  'write',
  'admin',
  'owner',
  'session',
  'non_member',
  'key_none',
  'key_caps',
  'operator',
];

const headers: Partial<Record<Caller, Record<string, string>>> = {};
let project: { id: string; slug: string };
let ownerToken: string;

async function raw(caller: Caller, method: string, path: string, body?: unknown) {
  const res = await fetch(`${inject('baseUrl')}/api/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers[caller] },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

beforeAll(async () => {
  const owner = await createAccount();
  ownerToken = owner.token;
  project = await createProject(owner.token);
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const as = api().as(owner.token);
  headers.owner = bearer(owner.token);
  headers.malformed = { authorization: 'Bearer' };
  headers.operator = bearer(inject('operatorToken'));
  for (const role of ['read', 'write', 'admin'] as const) {
    const member = await createAccount();
    const res = await as.put(`/api/v1/projects/${project.id}/members/${member.id}`, { role });
    expect(res.status).toBe(200);
    headers[role] = bearer(member.token);
  }
  const outsider = await createAccount();
  headers.non_member = bearer(outsider.token);
  const revoked = await as.post<{ id: string; token: string }>('/api/v1/account/tokens', {
    name: 'to revoke',
  });
  expect((await as.delete(`/api/v1/account/tokens/${revoked.body.id}`)).status).toBe(200);
  headers.revoked = bearer(revoked.body.token);
  const session = await as.post<{ token: string }>('/api/v1/account/sessions');
  expect(session.status).toBe(201);
  headers.session = bearer(session.body.token);
  const none = await as.post<{ key: string }>(`/api/v1/projects/${project.id}/api-keys`, {
    name: 'no caps',
    capabilities: {},
  });
  headers.key_none = bearer(none.body.key);
  const caps = await as.post<{ key: string }>(`/api/v1/projects/${project.id}/api-keys`, {
    name: 'caps',
    capabilities: { storage: true, databases: true },
  });
  headers.key_caps = bearer(caps.body.key);
});

/** Expected status per caller; callers not listed share `rest`. */
type Row = {
  name: string;
  call: (caller: Caller) => Promise<{ status: number }>;
  expect: Partial<Record<Caller, number>>;
  rest: number;
};

const unauth = { anonymous: 401, malformed: 401, revoked: 401 } as const;
const keysRefused = { key_none: 403, key_caps: 403, operator: 403 } as const;
const projectRead = { ...unauth, ...keysRefused, non_member: 404 } as const;

const rows: Row[] = [
  {
    name: 'POST /accounts',
    call: (c) => raw(c, 'POST', '/accounts', { email: `${uniqueName('m')}@example.test` }),
    expect: { ...unauth, operator: 201 },
    rest: 403,
  },
  {
    name: 'GET /account',
    call: (c) => raw(c, 'GET', '/account'),
    expect: { ...unauth, ...keysRefused },
    rest: 200,
  },
  {
    name: 'POST /account/tokens',
    call: (c) => raw(c, 'POST', '/account/tokens', {}),
    expect: { ...unauth, ...keysRefused, session: 403 },
    rest: 201,
  },
  {
    name: 'POST /account/sessions',
    call: (c) => raw(c, 'POST', '/account/sessions'),
    expect: { ...unauth, ...keysRefused, session: 403 },
    rest: 201,
  },
  {
    name: 'GET /account/sessions',
    call: (c) => raw(c, 'GET', '/account/sessions'),
    expect: { ...unauth, ...keysRefused },
    rest: 200,
  },
  {
    name: 'DELETE /account/sessions/:id (none by that id)',
    call: (c) => raw(c, 'DELETE', `/account/sessions/${crypto.randomUUID()}`),
    expect: { ...unauth, ...keysRefused },
    rest: 404,
  },
  {
    name: 'POST /projects',
    call: (c) => raw(c, 'POST', '/projects', { name: uniqueName('p') }),
    expect: { ...unauth, ...keysRefused },
    rest: 201,
  },
  {
    name: 'GET /projects',
    call: (c) => raw(c, 'GET', '/projects'),
    expect: { ...unauth, ...keysRefused },
    rest: 200,
  },
  {
    name: 'GET /projects/:id',
    call: (c) => raw(c, 'GET', `/projects/${project.slug}`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'PUT /projects/:id/members/:accountId (grant read)',
    call: async (c) => {
      const target = await createAccount();
      return raw(c, 'PUT', `/projects/${project.id}/members/${target.id}`, { role: 'read' });
    },
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 200,
  },
  {
    name: 'DELETE /projects/:id/members/:accountId',
    call: async (c) => {
      const target = await createAccount();
      await api().as(ownerToken).put(`/api/v1/projects/${project.id}/members/${target.id}`, { role: 'read' });
      return raw(c, 'DELETE', `/projects/${project.id}/members/${target.id}`);
    },
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 200,
  },
  {
    name: 'POST /projects/:id/api-keys',
    call: (c) => raw(c, 'POST', `/projects/${project.id}/api-keys`, { name: 'k', capabilities: {} }),
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 201,
  },
  {
    name: 'GET /projects/:id/api-keys',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/api-keys`),
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 200,
  },
  {
    name: 'POST /projects/:id/sites',
    call: (c) => raw(c, 'POST', `/projects/${project.id}/sites`, { slug: uniqueName('s') }),
    expect: { ...projectRead, read: 403 },
    rest: 201,
  },
  {
    name: 'GET /projects/:id/sites',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/sites`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'DELETE /projects/:id/sites/:siteId',
    call: async (c) => {
      const site = await api()
        .as(ownerToken)
        .post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, { slug: uniqueName('s') });
      return raw(c, 'DELETE', `/projects/${project.id}/sites/${site.body.id}`);
    },
    expect: { ...projectRead, read: 403 },
    rest: 200,
  },
  {
    name: 'GET /projects/:id/databases (keys with databases may read)',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/databases`),
    expect: { ...unauth, non_member: 404, key_none: 403, key_caps: 200, operator: 403 },
    rest: 200,
  },
  {
    name: 'GET /projects/:id/buckets (keys with storage may read)',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/buckets`),
    expect: { ...unauth, non_member: 404, key_none: 403, key_caps: 200, operator: 403 },
    rest: 200,
  },
  {
    name: 'POST /projects/:id/buckets',
    call: (c) => raw(c, 'POST', `/projects/${project.id}/buckets`, { name: uniqueName('b') }),
    expect: { ...projectRead, read: 403 },
    rest: 201,
  },
  {
    name: 'GET /projects/:id/sites/:siteId/env',
    call: async (c) => {
      const site = await api()
        .as(ownerToken)
        .post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, { slug: uniqueName('s') });
      return raw(c, 'GET', `/projects/${project.id}/sites/${site.body.id}/env`);
    },
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'PUT /projects/:id/sites/:siteId/env',
    call: async (c) => {
      const site = await api()
        .as(ownerToken)
        .post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, { slug: uniqueName('s') });
      return raw(c, 'PUT', `/projects/${project.id}/sites/${site.body.id}/env`, { vars: { A: '1' } });
    },
    expect: { ...projectRead, read: 403 },
    rest: 200,
  },
];

describe.each(rows)('$name', (row) => {
  it.each(CALLERS)('as %s', async (caller) => {
    const expected = row.expect[caller] ?? row.rest;
    const res = await row.call(caller);
    expect(res.status).toBe(expected);
  });
});

describe('dashboard sessions (issue 16)', () => {
  type Listed = {
    sessions: Array<{ id: string; current: boolean; minted_by: string | null; expires_at: string }>;
  };

  it('revoking the account token that minted a session ends that session; a session of another token lives on', async () => {
    const owner = await createAccount();
    const as = api().as(owner.token);
    const minter = await as.post<{ id: string; token: string }>('/api/v1/account/tokens', { name: 'minter' });
    const doomed = await api().as(minter.body.token).post<{ token: string }>('/api/v1/account/sessions');
    const kept = await as.post<{ token: string }>('/api/v1/account/sessions');
    expect([doomed.status, kept.status]).toEqual([201, 201]);
    expect((await api().as(doomed.body.token).get('/api/v1/account')).status).toBe(200);
    expect((await as.delete(`/api/v1/account/tokens/${minter.body.id}`)).status).toBe(200);
    expect((await api().as(doomed.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await api().as(kept.body.token).get('/api/v1/account')).status).toBe(200);
  });

  it('GET /account/sessions lists live sessions without their tokens; DELETE ends one (200, then 404)', async () => {
    const owner = await createAccount();
    const as = api().as(owner.token);
    const first = await as.post<{ token: string }>('/api/v1/account/sessions');
    const second = await as.post<{ token: string }>('/api/v1/account/sessions');
    const viaSession = api().as(first.body.token);
    const listed = await viaSession.get<Listed>('/api/v1/account/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(first.body.token);
    expect(JSON.stringify(listed.body)).not.toContain(second.body.token);
    expect(listed.body.sessions.map((x) => x.current)).toEqual([true, false]);
    const other = listed.body.sessions[1]?.id as string;
    const ended = await viaSession.delete(`/api/v1/account/sessions/${other}`);
    expect([ended.status, ended.body]).toEqual([200, { revoked: true }]);
    expect((await api().as(second.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await viaSession.delete(`/api/v1/account/sessions/${other}`)).status).toBe(404);
    expect((await as.get<Listed>('/api/v1/account/sessions')).body.sessions.map((x) => x.id)).toEqual([
      listed.body.sessions[0]?.id,
    ]);
    // Another account cannot end it, nor learn that it exists.
    const stranger = await createAccount();
    const mine = listed.body.sessions[0]?.id as string;
    expect((await api().as(stranger.token).delete(`/api/v1/account/sessions/${mine}`)).status).toBe(404);
    expect((await viaSession.get('/api/v1/account')).status).toBe(200);
  });
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

describe('a tenant cannot become the cluster admin', () => {
  // Regression (issue 16, critical): admin statements in a customer database called
  // hashtextextended unqualified, as superuser, with the tenant-owned `public` on the search_path.
  it('a connect-level app that plants public.hashtextextended(text, integer) stays an ordinary role through read-only connects, level changes and the reconciler', async () => {
    const as = api().as(ownerToken);
    const db = await createDatabase(as, project.id);
    const [attacker, reader, mover] = [
      await createSite(as, project.id),
      await createSite(as, project.id),
      await createSite(as, project.id),
    ];
    const connect = (siteId: string, level: string) =>
      as.post(`/api/v1/projects/${project.id}/sites/${siteId}/connections`, {
        kind: 'database',
        resource_id: db.id,
        level,
      });
    expect((await connect(attacker.id, 'connect')).status).toBe(201);
    expect((await connect(mover.id, 'connect')).status).toBe(201);
    const url = await databaseUrlOf(as, project.id, attacker.id);
    const role = decodeURIComponent(new URL(url).username);
    const database = new URL(url).pathname.slice(1);
    const app = await appSession(url);
    try {
      await plantHashtextextended(app, role);
      expect((await connect(reader.id, 'read-only')).status).toBe(201);
      expect((await connect(mover.id, 'read-only')).status).toBe(201);
      await triggerScheduled();
    } finally {
      await app.end().catch(() => undefined);
    }
    expect(await attackOutcome(database, role)).toEqual({ superuser: false, calls: [] });
  });
});
