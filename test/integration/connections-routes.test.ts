/**
 * The connection routes against the documented tables (docs/connections.md): one test per row of Kinds and
 * levels and Injected variables (Errors > Management routes: connections-errors.test.ts).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  type Connection as Conn,
  connectSite as connect,
  connectionsPath,
  createAuthApp,
  createBucket,
  createDatabase,
  effectiveVars,
  projectPath,
  seed,
} from '../helpers/connections';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';

const world = connectionsWorldForFile();
/** A project with two sites, so new services start unconnected. */
const s = seededForFile(2, () => world.worker.baseUrl);

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

describe('Kinds and levels', () => {
  it('database | read-only: the app may read everything connect apps make, and not write', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const [writer, reader] = s.sites;
    expect((await connect(s, { kind: 'database', resource_id: db.id }, writer?.id)).status).toBe(201);
    const ro = await connect(s, { kind: 'database', resource_id: db.id, level: 'read-only' }, reader?.id);
    expect(ro.status).toBe(201);
    expect(ro.body.level).toBe('read-only');
    const rw = (await effectiveVars(s, writer?.id))[`DATABASE_URL_${db.name.toUpperCase()}`] as string;
    const r = (await effectiveVars(s, reader?.id))[`DATABASE_URL_${db.name.toUpperCase()}`] as string;
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
    const url = (await effectiveVars(s))[`DATABASE_URL_${db.name.toUpperCase()}`] as string;
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
    const vars = await effectiveVars(s);
    expect(vars[`STORAGE_${n}_ACCESS_KEY`]).toMatch(/^AKIA/);
    expect(vars[`STORAGE_${n}_SECRET_KEY`]?.length).toBeGreaterThan(20);
  });

  it('auth_app | client | default: app id, both endpoints, the server key, and no platform key', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const app = await createAuthApp(p.as, p.project.id);
    const list = await p.as.get<{ connections: Conn[] }>(connectionsPath(p));
    expect(list.body.connections.map((c) => [c.kind, c.level])).toEqual([['auth_app', 'client']]);
    const vars = await effectiveVars(p);
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
    const key = (await effectiveVars(p)).PLATFORM_API_KEY as string;
    expect(key).toMatch(/^tth_pk_/);
    const asKey = api(world.worker.baseUrl, key);
    expect((await asKey.get(`${projectPath(p)}/auth-apps/${app.id}/users`)).status).toBe(200);
    expect((await asKey.get(`${projectPath(p)}/auth-apps/${other.id}/users`)).status).toBe(403);
  });
});

describe('Injected variables', () => {
  it('PostgreSQL database: DATABASE_URL plus DATABASE_URL_<NAME>, a postgres:// URL', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const db = await createDatabase(p.as, p.project.id);
    const list = await p.as.get<{ connections: Conn[] }>(connectionsPath(p));
    const n = db.name.toUpperCase();
    expect(list.body.connections[0]?.env_names).toEqual(['DATABASE_URL', `DATABASE_URL_${n}`]);
    const vars = await effectiveVars(p);
    expect(vars.DATABASE_URL).toBe(vars[`DATABASE_URL_${n}`]);
    expect(vars.DATABASE_URL).toMatch(/^postgres:\/\/c_[a-z0-9]{8}:[A-Za-z0-9]+@[^/]+:\d+\/.+$/);
  });

  it('MongoDB database: MONGODB_URI, alias MONGODB_URL, MONGODB_URI_<NAME> and MONGODB_URL_<NAME>', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const db = await createDatabase(p.as, p.project.id, 'mongodb');
    const n = db.name.toUpperCase();
    const list = await p.as.get<{ connections: Conn[] }>(connectionsPath(p));
    expect(list.body.connections[0]?.env_names).toEqual([
      'MONGODB_URI',
      'MONGODB_URL',
      `MONGODB_URI_${n}`,
      `MONGODB_URL_${n}`,
    ]);
    const vars = await effectiveVars(p);
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
    const list = await p.as.get<{ connections: Conn[] }>(connectionsPath(p));
    expect(list.body.connections[0]?.env_names).toEqual([
      ...fields.map((f) => `STORAGE_${f}`),
      ...fields.map((f) => `STORAGE_${n}_${f}`),
    ]);
    const vars = await effectiveVars(p);
    expect(vars.STORAGE_ENDPOINT).toBe(world.aws.url);
    expect(vars.STORAGE_REGION).toBe('us-east-1');
    for (const f of fields) expect(vars[`STORAGE_${n}_${f}`]).toBe(vars[`STORAGE_${f}`]);
  });

  it('Auth app: SERVICE_AUTH_*, PLATFORM_AUTH_APP_ID and the four SERVICE_AUTH_*_<NAME>', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const app = await createAuthApp(p.as, p.project.id);
    const n = app.name.toUpperCase().replace(/-/g, '_');
    const list = await p.as.get<{ connections: Conn[] }>(connectionsPath(p));
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
    const vars = await effectiveVars(p);
    expect(vars.PLATFORM_AUTH_APP_ID).toBe(app.name);
    expect(vars[`SERVICE_AUTH_SERVER_KEY_${n}`]).toBe(vars.SERVICE_AUTH_SERVER_KEY);
  });
});
