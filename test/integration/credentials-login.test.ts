/**
 * Per-connection PostgreSQL credentials through the HTTP routes, with apps logging in for real
 * using exactly the DATABASE_URL their effective variables hand them.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import { createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile } from '../helpers/for-file';
import { roleExists } from '../helpers/pg-login';
import { startExtraWorker, triggerScheduled } from '../helpers/worker';

const DENIED = '42501';
const world = connectionsWorldForFile();
let s: Seeded;
let other: Seeded;
let dbId: string;
let otherDbId: string;
const sessions: pg.Client[] = [];

const base = (p: Seeded) => `/api/v1/projects/${p.project.id}`;
const site = (p: Seeded, i: number) => p.sites[i]?.id as string;

async function databaseUrl(p: Seeded, i: number): Promise<string> {
  const res = await p.as.get<{ vars: Record<string, string> }>(
    `${base(p)}/sites/${site(p, i)}/env/effective`,
  );
  expect(res.status).toBe(200);
  const url = res.body.vars.DATABASE_URL;
  if (!url) throw new Error(`site ${i} has no DATABASE_URL`);
  return url;
}

async function open(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  sessions.push(client);
  return client;
}

async function state(client: pg.Client, text: string): Promise<string | null> {
  try {
    await client.query(text);
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? 'error';
  }
}

async function canLogin(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function connect(p: Seeded, i: number, resourceId: string, level?: string) {
  const res = await p.as.post(`${base(p)}/sites/${site(p, i)}/connections`, {
    kind: 'database',
    resource_id: resourceId,
    ...(level ? { level } : {}),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  // Sites 0 and 1 connect, site 2 reads only, site 3 stays unconnected.
  s = await seed(world.worker.baseUrl, 4);
  dbId = (await createDatabase(s.as, s.project.id)).id;
  await connect(s, 0, dbId);
  await connect(s, 1, dbId);
  await connect(s, 2, dbId, 'read-only');
  other = await seed(world.worker.baseUrl, 2);
  otherDbId = (await createDatabase(other.as, other.project.id)).id;
  await connect(other, 0, otherDbId);
});

afterAll(async () => {
  for (const c of sessions) await c.end().catch(() => undefined);
});

describe('apps log in with their own role', () => {
  it('each connection has its own c_ role, never the main user', async () => {
    const users = await Promise.all([0, 1, 2].map(async (i) => new URL(await databaseUrl(s, i)).username));
    for (const u of users) expect(u).toMatch(/^c_[a-z0-9]{8}$/);
    expect(new Set(users).size).toBe(3);
  });

  it('a connect app creates a table and a second connect app alters it', async () => {
    const a = await open(await databaseUrl(s, 0));
    await a.query('create table notes (id int primary key, body text)');
    await a.query("insert into notes values (1, 'one')");
    const b = await open(await databaseUrl(s, 1));
    await b.query('alter table notes add column tag text');
    await b.query("update notes set tag = 'x' where id = 1");
    expect((await a.query('select tag from notes')).rows[0].tag).toBe('x');
  });

  it('a read-only app reads it and a table created later, and is refused INSERT, UPDATE, DELETE and CREATE', async () => {
    const r = await open(await databaseUrl(s, 2));
    expect((await r.query('select count(*)::int as n from notes')).rows[0].n).toBe(1);
    const a = await open(await databaseUrl(s, 0));
    await a.query(
      'create schema later; create table later.items (id int); insert into later.items values (7)',
    );
    expect((await r.query('select id from later.items')).rows[0].id).toBe(7);
    expect(await state(r, "insert into notes values (2, 'two')")).toBe(DENIED);
    expect(await state(r, "update notes set body = 'changed'")).toBe(DENIED);
    expect(await state(r, 'delete from notes')).toBe(DENIED);
    expect(await state(r, 'create table mine (id int)')).toBe(DENIED);
  });

  it('after an immediate rotate the old password fails and the new one works; other sites are unchanged', async () => {
    const before = await databaseUrl(s, 0);
    const others = [await databaseUrl(s, 1), await databaseUrl(s, 2), await databaseUrl(other, 0)];
    // The immediate rotate (docs/contract.md §14: `?immediate=true`, the same login).
    const res = await s.as.post(
      `${base(s)}/sites/${site(s, 0)}/connections/database/${dbId}/rotate?immediate=true`,
    );
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await databaseUrl(s, 0);
    expect(new URL(after).username).toBe(new URL(before).username);
    expect(new URL(after).password).not.toBe(new URL(before).password);
    expect(await canLogin(before)).toBe(false);
    expect(await canLogin(after)).toBe(true);
    expect([await databaseUrl(s, 1), await databaseUrl(s, 2), await databaseUrl(other, 0)]).toEqual(others);
    for (const url of others) expect(await canLogin(url)).toBe(true);
    const patch = await world.receiver.next(
      (r) =>
        (r.body as { site_id?: string; reason?: string }).site_id === site(s, 0) &&
        (r.body as { reason?: string }).reason === 'rotate',
    );
    expect((patch.body as { set: Record<string, string> }).set.DATABASE_URL).toBe(after);
  });

  it('PUT with an unchanged set leaves every password unchanged', async () => {
    const urls = await Promise.all([0, 1, 2].map((i) => databaseUrl(s, i)));
    const secretsBefore = await metadata<{ c: string }>(
      'select credential_secret_ciphertext as c from connections where resource_id = $1 order by id',
      [dbId],
    );
    for (const i of [0, 1, 2]) {
      const listed = await s.as.get<{
        connections: Array<{ kind: string; resource_id: string; level: string }>;
      }>(`${base(s)}/sites/${site(s, i)}/connections`);
      const set = listed.body.connections.map((c) => ({
        kind: c.kind,
        resource_id: c.resource_id,
        level: c.level,
      }));
      expect(
        (await s.as.put(`${base(s)}/sites/${site(s, i)}/connections`, { connections: set })).status,
      ).toBe(200);
    }
    expect(await Promise.all([0, 1, 2].map((i) => databaseUrl(s, i)))).toEqual(urls);
    expect(
      await metadata<{ c: string }>(
        'select credential_secret_ciphertext as c from connections where resource_id = $1 order by id',
        [dbId],
      ),
    ).toEqual(secretsBefore);
    for (const url of urls) expect(await canLogin(url)).toBe(true);
  });

  it('after disconnect its login fails and its open session is gone', async () => {
    const url = await databaseUrl(s, 2);
    const session = await open(url);
    expect(await state(session, 'select 1')).toBeNull();
    const res = await s.as.delete(`${base(s)}/sites/${site(s, 2)}/connections/database/${dbId}`);
    expect(res.body).toEqual({ removed: true });
    // At once: gone when the answer arrives, not later through the queue.
    const role = new URL(url).username;
    expect(await roleExists(role)).toBe(false);
    expect(await state(session, 'select 1')).not.toBeNull();
    expect(await canLogin(url)).toBe(false);
    expect(await canLogin(await databaseUrl(s, 1))).toBe(true);
    // Its cleanup row is closed by the queue (the request makes no metadata round trip for it).
    const cleanup = await eventually(
      async () =>
        (
          await metadata<{ done: boolean }>(
            'select done_at is not null as done from credential_cleanups where credential_name = $1',
            [role],
          )
        )[0],
      (row) => row?.done === true,
      20_000,
      `the cleanup of ${role} marked done`,
    );
    expect(cleanup?.done).toBe(true);
  });

  it('a disconnect while the cluster is unreachable answers 200; the drop is retried until it happens', async () => {
    await connect(other, 1, otherDbId);
    const url = await databaseUrl(other, 1);
    const role = new URL(url).username;
    const broken = await startExtraWorker({
      CUSTOMER_DB_ADMIN_URL: 'postgres://nobody:x@127.0.0.1:9/postgres',
    });
    try {
      const res = await api(broken.baseUrl, other.token).delete(
        `${base(other)}/sites/${site(other, 1)}/connections/database/${otherDbId}`,
      );
      expect([res.status, res.body]).toEqual([200, { removed: true }]);
    } finally {
      await broken.stop();
    }
    // Not dropped yet, and recorded as still to do.
    expect(await roleExists(role)).toBe(true);
    const [pending] = await metadata<{ done: boolean; attempts: number }>(
      'select done_at is not null as done, attempts from credential_cleanups where credential_name = $1',
      [role],
    );
    expect(pending).toMatchObject({ done: false });
    expect(pending?.attempts).toBeGreaterThanOrEqual(1);
    // Its queue message went with the stopped Worker: the reconciler sends it again.
    await metadata(
      "update credential_cleanups set created_at = now() - interval '2 minutes' where credential_name = $1",
      [role],
    );
    await triggerScheduled(world.worker.baseUrl);
    await eventually(
      () => roleExists(role),
      (exists) => !exists,
      30_000,
      `role ${role} dropped`,
    );
    expect(await canLogin(url)).toBe(false);
  });

  it('deleting the site drops its roles at once and ends their sessions', async () => {
    await connect(s, 3, dbId);
    const url = await databaseUrl(s, 3);
    const session = await open(url);
    expect(await state(session, 'select 1')).toBeNull();
    expect((await s.as.delete(`${base(s)}/sites/${site(s, 3)}`)).status).toBe(200);
    expect(await roleExists(new URL(url).username)).toBe(false);
    expect(await state(session, 'select 1')).not.toBeNull();
    expect(await canLogin(url)).toBe(false);
  });
});
