/**
 * The connection routes against the specification's tables: one test per row of Kinds and
 * levels, Injected variables and Errors > Management routes.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, api, createAccount } from '../helpers/api';
import {
  type ConnectionsWorld,
  createAuthApp,
  createBucket,
  createDatabase,
  createSite,
  deliveriesOf,
  type Seeded,
  seed,
  startConnectionsWorld,
} from '../helpers/connections';
import { startExtraWorker } from '../helpers/worker';

interface Conn {
  site_id: string;
  site_slug: string;
  kind: string;
  resource_id: string;
  resource_name: string;
  level: string;
  env_names: string[];
  created_at: string;
}

let world: ConnectionsWorld;
let s: Seeded;
/** A project with two sites, so new services start unconnected. */
const base = (p: Seeded) => `/api/v1/projects/${p.project.id}`;
const conns = (p: Seeded, site = p.sites[0]?.id) => `${base(p)}/sites/${site}/connections`;

async function connect(p: Seeded, body: Record<string, unknown>, site = p.sites[0]?.id) {
  return p.as.post<Conn>(conns(p, site), body);
}
async function effective(p: Seeded, site = p.sites[0]?.id): Promise<Record<string, string>> {
  const res = await p.as.get<{ vars: Record<string, string> }>(`${base(p)}/sites/${site}/env/effective`);
  expect(res.status).toBe(200);
  return res.body.vars;
}
async function sql(url: string, text: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(text);
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? 'error';
  } finally {
    await client.end().catch(() => undefined);
  }
}

beforeAll(async () => {
  world = await startConnectionsWorld();
  s = await seed(world.worker.baseUrl, 2);
});
afterAll(async () => {
  await world?.stop();
});

describe('Kinds and levels', () => {
  it('database | read-only: the app may read everything connect apps make, and not write', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const [writer, reader] = s.sites;
    expect((await connect(s, { kind: 'database', resource_id: db.id }, writer?.id)).status).toBe(201);
    const ro = await connect(s, { kind: 'database', resource_id: db.id, level: 'read-only' }, reader?.id);
    expect(ro.status).toBe(201);
    expect(ro.body.level).toBe('read-only');
    const rw = (await effective(s, writer?.id))[`DATABASE_URL_${db.name.toUpperCase()}`] as string;
    const r = (await effective(s, reader?.id))[`DATABASE_URL_${db.name.toUpperCase()}`] as string;
    expect(await sql(rw, 'create table t1 (v int); insert into t1 values (1)')).toBeNull();
    expect(await sql(r, 'select * from t1')).toBeNull();
    expect(await sql(r, 'insert into t1 values (2)')).toBe('42501');
    expect(await sql(r, 'create table t2 (v int)')).toBe('42501');
  });

  it('database | connect | default: connection variables, and the app may write', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const res = await connect(s, { kind: 'database', resource_id: db.id });
    expect(res.status).toBe(201);
    expect(res.body.level).toBe('connect');
    const url = (await effective(s))[`DATABASE_URL_${db.name.toUpperCase()}`] as string;
    expect(await sql(url, 'create table w (v int); insert into w values (1)')).toBeNull();
  });

  it('bucket | read: the same names as read-write, with a key at level read', async () => {
    const b = await createBucket(s.as, s.project.id);
    const res = await connect(s, { kind: 'bucket', resource_id: b.id, level: 'read' });
    expect(res.status).toBe(201);
    expect(res.body.level).toBe('read');
    const other = await connect(s, { kind: 'bucket', resource_id: b.id }, s.sites[1]?.id);
    expect(other.body.level).toBe('read-write');
    const suffixed = (names: string[]) =>
      names.filter((n) => n.includes(`_${b.name.toUpperCase().replace(/-/g, '_')}_`));
    expect(suffixed(res.body.env_names)).toEqual(suffixed(other.body.env_names));
  });

  it("bucket | read-write | default: the bucket's S3 credentials", async () => {
    const b = await createBucket(s.as, s.project.id);
    const res = await connect(s, { kind: 'bucket', resource_id: b.id });
    expect(res.status).toBe(201);
    expect(res.body.level).toBe('read-write');
    const n = b.name.toUpperCase().replace(/-/g, '_');
    const vars = await effective(s);
    expect(vars[`STORAGE_${n}_ACCESS_KEY`]).toMatch(/^AKIA/);
    expect(vars[`STORAGE_${n}_SECRET_KEY`]?.length).toBeGreaterThan(20);
  });

  it('auth_app | client | default: app id, both endpoints, the server key, and no platform key', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const app = await createAuthApp(p.as, p.project.id);
    const list = await p.as.get<{ connections: Conn[] }>(conns(p));
    expect(list.body.connections.map((c) => [c.kind, c.level])).toEqual([['auth_app', 'client']]);
    const vars = await effective(p);
    expect(vars.SERVICE_AUTH_APP_ID).toBe(app.name);
    expect(vars.SERVICE_AUTH_URL).toBe(`${world.worker.baseUrl}/v1/${app.name}`);
    expect(vars.SERVICE_AUTH_SERVER_KEY).toMatch(/^tth_sk_/);
    expect(vars.PLATFORM_API_KEY).toBeUndefined();
  });

  it("auth_app | admin: the site's managed PLATFORM_API_KEY may administer that app's end users", async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const app = await createAuthApp(p.as, p.project.id);
    const other = await createAuthApp(p.as, p.project.id);
    expect((await connect(p, { kind: 'auth_app', resource_id: app.id, level: 'admin' })).status).toBe(201);
    const key = (await effective(p)).PLATFORM_API_KEY as string;
    expect(key).toMatch(/^tth_pk_/);
    const asKey = api(world.worker.baseUrl, key);
    expect((await asKey.get(`${base(p)}/auth-apps/${app.id}/users`)).status).toBe(200);
    expect((await asKey.get(`${base(p)}/auth-apps/${other.id}/users`)).status).toBe(403);
  });
});

describe('Injected variables', () => {
  it('PostgreSQL database: DATABASE_URL plus DATABASE_URL_<NAME>, a postgres:// URL', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const db = await createDatabase(p.as, p.project.id);
    const list = await p.as.get<{ connections: Conn[] }>(conns(p));
    const n = db.name.toUpperCase();
    expect(list.body.connections[0]?.env_names).toEqual(['DATABASE_URL', `DATABASE_URL_${n}`]);
    const vars = await effective(p);
    expect(vars.DATABASE_URL).toBe(vars[`DATABASE_URL_${n}`]);
    expect(vars.DATABASE_URL).toMatch(/^postgres:\/\/c_[a-z0-9]{8}:[A-Za-z0-9]+@[^/]+:\d+\/.+$/);
  });

  it('MongoDB database: MONGODB_URI, alias MONGODB_URL, MONGODB_URI_<NAME> and MONGODB_URL_<NAME>', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const db = await createDatabase(p.as, p.project.id, 'mongodb');
    const n = db.name.toUpperCase();
    const list = await p.as.get<{ connections: Conn[] }>(conns(p));
    expect(list.body.connections[0]?.env_names).toEqual([
      'MONGODB_URI',
      'MONGODB_URL',
      `MONGODB_URI_${n}`,
      `MONGODB_URL_${n}`,
    ]);
    const vars = await effective(p);
    expect(vars.MONGODB_URI).toMatch(/^mongodb:\/\/c_[a-z0-9]{8}:/);
    expect(new Set([vars.MONGODB_URL, vars[`MONGODB_URI_${n}`], vars[`MONGODB_URL_${n}`]])).toEqual(
      new Set([vars.MONGODB_URI]),
    );
  });

  it('Bucket: STORAGE_* and STORAGE_<NAME>_*', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const b = await createBucket(p.as, p.project.id);
    const n = b.name.toUpperCase().replace(/-/g, '_');
    const fields = ['ENDPOINT', 'ACCESS_KEY', 'SECRET_KEY', 'BUCKET', 'REGION'];
    const list = await p.as.get<{ connections: Conn[] }>(conns(p));
    expect(list.body.connections[0]?.env_names).toEqual([
      ...fields.map((f) => `STORAGE_${f}`),
      ...fields.map((f) => `STORAGE_${n}_${f}`),
    ]);
    const vars = await effective(p);
    expect(vars.STORAGE_ENDPOINT).toBe(world.aws.url);
    expect(vars.STORAGE_REGION).toBe('us-east-1');
    for (const f of fields) expect(vars[`STORAGE_${n}_${f}`]).toBe(vars[`STORAGE_${f}`]);
  });

  it('Auth app: SERVICE_AUTH_*, PLATFORM_AUTH_APP_ID and the four SERVICE_AUTH_*_<NAME>', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const app = await createAuthApp(p.as, p.project.id);
    const n = app.name.toUpperCase().replace(/-/g, '_');
    const list = await p.as.get<{ connections: Conn[] }>(conns(p));
    expect(list.body.connections[0]?.env_names).toEqual([
      'SERVICE_AUTH_APP_ID',
      'SERVICE_AUTH_URL',
      'SERVICE_AUTH_PUBLIC_URL',
      'SERVICE_AUTH_SERVER_KEY',
      'PLATFORM_AUTH_APP_ID',
      `SERVICE_AUTH_APP_ID_${n}`,
      `SERVICE_AUTH_URL_${n}`,
      `SERVICE_AUTH_PUBLIC_URL_${n}`,
      `SERVICE_AUTH_SERVER_KEY_${n}`,
    ]);
    const vars = await effective(p);
    expect(vars.PLATFORM_AUTH_APP_ID).toBe(app.name);
    expect(vars[`SERVICE_AUTH_SERVER_KEY_${n}`]).toBe(vars.SERVICE_AUTH_SERVER_KEY);
  });
});

describe('Errors > Management routes', () => {
  let db: { id: string; name: string };
  beforeAll(async () => {
    db = await createDatabase(s.as, s.project.id);
  });

  it('400: unknown kind', async () => {
    const res = await connect(s, { kind: 'queue', resource_id: db.id });
    expect(res.status).toBe(400);
    expect((await s.as.delete(`${conns(s)}/queue/${db.id}`)).status).toBe(400);
  });
  it('400: a level the kind does not accept', async () => {
    const res = await connect(s, { kind: 'database', resource_id: db.id, level: 'read-write' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('read-only, connect');
    const put = await s.as.put(conns(s), {
      connections: [{ kind: 'database', resource_id: db.id, level: 'admin' }],
    });
    expect(put.status).toBe(400);
  });
  it('400: a resource belonging to another project, or to none', async () => {
    const other = await seed(world.worker.baseUrl, 1);
    const foreign = await createDatabase(other.as, other.project.id);
    expect((await connect(s, { kind: 'database', resource_id: foreign.id })).status).toBe(400);
    expect((await connect(s, { kind: 'database', resource_id: crypto.randomUUID() })).status).toBe(400);
    expect((await connect(s, { kind: 'bucket', resource_id: db.id })).status).toBe(400);
  });
  it("403: the caller's project role is too low", async () => {
    const reader = await createAccount(undefined, world.worker.baseUrl);
    const put = await s.as.put(`${base(s)}/members/${reader.id}`, { role: 'read' });
    expect(put.status).toBe(200);
    const as: ApiClient = api(world.worker.baseUrl, reader.token);
    expect((await as.get(conns(s))).status).toBe(200);
    expect((await as.post(conns(s), { kind: 'database', resource_id: db.id })).status).toBe(403);
    expect((await as.put(conns(s), { connections: [] })).status).toBe(403);
    expect((await as.delete(`${conns(s)}/database/${db.id}`)).status).toBe(403);
    expect((await as.post(`${conns(s)}/database/${db.id}/rotate`)).status).toBe(403);
    // The role is checked before the body: a malformed one changes nothing about the answer.
    expect((await as.post(conns(s), { kind: 'queue', resource_id: 'x' })).status).toBe(403);
    expect((await as.put(conns(s), { connections: 'all' })).status).toBe(403);
    expect((await as.delete(`${conns(s)}/queue/x`)).status).toBe(403);
  });
  it('403: the caller is a project API key, whatever its capabilities', async () => {
    const key = await s.as.post<{ key: string }>(`${base(s)}/api-keys`, {
      name: 'all',
      capabilities: { storage: true, databases: true },
    });
    const as = api(world.worker.baseUrl, key.body.key);
    expect((await as.get(`${base(s)}/connections`)).status).toBe(403);
    expect((await as.get(conns(s))).status).toBe(403);
    expect((await as.post(conns(s), { kind: 'database', resource_id: db.id })).status).toBe(403);
    expect((await as.put(conns(s), { connections: [] })).status).toBe(403);
    expect((await as.delete(`${conns(s)}/database/${db.id}`)).status).toBe(403);
  });
  it('404: no such project (or not a member)', async () => {
    const stranger = await createAccount(undefined, world.worker.baseUrl);
    const as = api(world.worker.baseUrl, stranger.token);
    expect((await as.get(conns(s))).status).toBe(404);
    expect((await s.as.get(`/api/v1/projects/${crypto.randomUUID()}/connections`)).status).toBe(404);
    // Before the body is checked, too.
    expect((await as.post(conns(s), { kind: 'queue' })).status).toBe(404);
    const nowhere = `/api/v1/projects/${crypto.randomUUID()}/sites/${s.sites[0]?.id}/connections`;
    expect((await s.as.put(nowhere, { connections: 'all' })).status).toBe(404);
    // A reference no project can have (too long for a slug) is no such project too, not a 400.
    const long = 'a'.repeat(300);
    expect((await s.as.get(`/api/v1/projects/${long}/connections`)).status).toBe(404);
    expect((await s.as.get(`/api/v1/projects/${long}/sites/${s.sites[0]?.id}/connections`)).status).toBe(404);
  });
  it('404: :siteId is not a site of the project', async () => {
    const other = await seed(world.worker.baseUrl, 1);
    expect((await s.as.get(conns(s, other.sites[0]?.id))).status).toBe(404);
    expect((await connect(s, { kind: 'database', resource_id: db.id }, crypto.randomUUID())).status).toBe(
      404,
    );
  });
  it('404: :siteId is not a uuid', async () => {
    expect((await s.as.get(conns(s, 'not-a-uuid'))).status).toBe(404);
    expect((await s.as.put(conns(s, 'web'), { connections: [] })).status).toBe(404);
  });
  it('404: on rotate, the service is not connected to that site', async () => {
    const other = await createDatabase(s.as, s.project.id);
    expect((await s.as.post(`${conns(s)}/database/${other.id}/rotate`)).status).toBe(404);
  });
  it("409: rotate of a connection served by the service's shared credential", async () => {
    const stopped = await createDatabase(s.as, s.project.id);
    expect((await s.as.post(`${base(s)}/databases/${stopped.id}/stop`)).status).toBe(200);
    expect((await connect(s, { kind: 'database', resource_id: stopped.id })).status).toBe(201);
    const res = await s.as.post<{ error: { code: string } }>(`${conns(s)}/database/${stopped.id}/rotate`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('SHARED_CREDENTIAL');
  });
  it("503: the site's own credential cannot be prepared; nothing changed and a retry later works", async () => {
    const target = await createDatabase(s.as, s.project.id);
    const site = await createSite(s.as, s.project.id);
    const broken = await startExtraWorker({
      CUSTOMER_DB_ADMIN_URL: 'postgres://nobody:x@127.0.0.1:9/postgres',
    });
    try {
      const as = api(broken.baseUrl, s.token);
      const res = await as.post(conns(s, site.id), { kind: 'database', resource_id: target.id });
      expect(res.status).toBe(503);
      const put = await as.put(conns(s, site.id), {
        connections: [{ kind: 'database', resource_id: target.id }],
      });
      expect(put.status).toBe(503);
    } finally {
      await broken.stop();
    }
    const list = await s.as.get<{ connections: Conn[] }>(conns(s, site.id));
    expect(list.body.connections).toEqual([]);
    expect(await deliveriesOf(site.id)).toEqual([]);
    expect((await connect(s, { kind: 'database', resource_id: target.id }, site.id)).status).toBe(201);
  });
  it('rotate of an auth_app connection is 400 (it has no credential)', async () => {
    const app = await createAuthApp(s.as, s.project.id);
    expect((await connect(s, { kind: 'auth_app', resource_id: app.id })).status).toBe(201);
    expect((await s.as.post(`${conns(s)}/auth_app/${app.id}/rotate`)).status).toBe(400);
  });
});

describe('POST on an existing connection', () => {
  it('without a level it keeps the level it has (connecting again changes nothing, delivers nothing)', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const site = s.sites[0]?.id as string;
    const first = await connect(s, { kind: 'database', resource_id: db.id, level: 'read-only' });
    expect(first.status).toBe(201);
    const ids = async () => (await deliveriesOf(site)).map((d) => d.id);
    const before = await ids();
    const again = await connect(s, { kind: 'database', resource_id: db.id });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await ids()).toEqual(before);
    // Naming a level still changes it.
    const raised = await connect(s, { kind: 'database', resource_id: db.id, level: 'connect' });
    expect(raised.body.level).toBe('connect');
  });

  it('a disabled auth app: its connection may go down a level, never up (400, nothing changed)', async () => {
    const app = await createAuthApp(s.as, s.project.id);
    expect((await connect(s, { kind: 'auth_app', resource_id: app.id, level: 'admin' })).status).toBe(201);
    const patch = await s.as.patch(`${base(s)}/auth-apps/${app.id}`, { enabled: false });
    expect(patch.status).toBe(200);
    expect((await connect(s, { kind: 'auth_app', resource_id: app.id, level: 'client' })).body.level).toBe(
      'client',
    );
    const up = await connect(s, { kind: 'auth_app', resource_id: app.id, level: 'admin' });
    expect(up.status).toBe(400);
    expect(up.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect(JSON.stringify(up.body)).toContain('disabled');
    const put = await s.as.put(conns(s), {
      connections: [{ kind: 'auth_app', resource_id: app.id, level: 'admin' }],
    });
    expect(put.status).toBe(400);
    const listed = await s.as.get<{ connections: Conn[] }>(conns(s));
    expect(listed.body.connections.find((c) => c.resource_id === app.id)?.level).toBe('client');
  });
});
