/**
 * A PostgreSQL database's own credentials and its named principals (CONTRACT §7), through the
 * API on the shared Worker, with every case logging in to the real cluster.
 */
import { Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import { createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { canLogin, loginAs, sqlState, superuser } from '../helpers/pg-login';
import { triggerScheduled } from '../helpers/worker';

const INSUFFICIENT_PRIVILEGE = '42501';

type Creds = { user: string; password: string; url: string; external_url: string; pooled_url: string };
type Shown = {
  id: string;
  name: string;
  level: string;
  allowed_sources: string[];
  expires_at: string | null;
  created_at: string;
  username: string;
  password: string;
  url: string;
};

let world: Seeded;
const sessions: pg.Client[] = [];
const hourAhead = () => new Date(Date.now() + 3600_000).toISOString();

beforeAll(async () => {
  world = await seed(api().baseUrl, 1);
});
afterAll(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
});

async function database() {
  const db = await createDatabase(world.as, world.project.id);
  const res = await world.as.get<Creds>(
    `/api/v1/projects/${world.project.id}/databases/${db.id}/credentials`,
  );
  expect(res.status, res.text).toBe(200);
  const physical = new URL(res.body.url).pathname.slice(1);
  return {
    ...db,
    physical,
    creds: res.body,
    base: `/api/v1/projects/${world.project.id}/databases/${db.id}`,
  };
}

async function session(physical: string, user: string, password: string) {
  const s = await loginAs(physical, user, password);
  sessions.push(s);
  return s;
}

async function principal(base: string, body: Record<string, unknown>): Promise<Shown> {
  const res = await world.as.post<Shown>(`${base}/principals`, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Whether `user` can log in to the cluster (on 127.0.0.1) from source address `from`. */
async function canLoginFrom(
  from: string,
  database: string,
  user: string,
  password: string,
): Promise<boolean> {
  // A socket bound to `from` before it connects: the loopback range gives several source addresses.
  class BoundSocket extends Socket {
    override connect(...args: unknown[]): this {
      const [port, host] = args as [number, string];
      return super.connect({ port, host, localAddress: from });
    }
  }
  const client = new pg.Client({
    host: '127.0.0.1',
    port: inject('pgPort'),
    user,
    password,
    database,
    connectionTimeoutMillis: 5_000,
    stream: () => new BoundSocket(),
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

describe('database credentials', () => {
  it('show the main user u_…, whose password logs in; rotate gives a new one and the old is refused', async () => {
    const db = await database();
    expect(db.creds.user).toMatch(/^u_/);
    for (const url of [db.creds.url, db.creds.external_url, db.creds.pooled_url])
      expect(decodeURIComponent(new URL(url).username)).toBe(db.creds.user);
    const main = await session(db.physical, db.creds.user, db.creds.password);
    expect((await main.query('select 1 as one')).rows[0]).toEqual({ one: 1 });

    // An app connected before the rotation keeps its own credential.
    const site = world.sites[0] as { id: string };
    const conn = await world.as.post(`/api/v1/projects/${world.project.id}/sites/${site.id}/connections`, {
      kind: 'database',
      resource_id: db.id,
    });
    expect(conn.status).toBe(201);
    const env = await world.as.get<{ vars: Record<string, string> }>(
      `/api/v1/projects/${world.project.id}/sites/${site.id}/env/effective`,
    );
    const appUrl = new URL(env.body.vars.DATABASE_URL as string);

    const rotated = await world.as.post<Creds>(`${db.base}/credentials/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.user).toBe(db.creds.user);
    expect(rotated.body.password).not.toBe(db.creds.password);
    expect(await canLogin(db.physical, db.creds.user, db.creds.password)).toBe(false);
    expect(await canLogin(db.physical, db.creds.user, rotated.body.password)).toBe(true);
    expect(await canLogin(db.physical, appUrl.username, decodeURIComponent(appUrl.password))).toBe(true);
    const again = await world.as.get<Creds>(`${db.base}/credentials`);
    expect(again.body.password).toBe(rotated.body.password);
  });

  it('need the admin role: a writer gets 403, and nothing is shown', async () => {
    const db = await database();
    const { createAccount } = await import('../helpers/api');
    const writer = await createAccount();
    await world.as.put(`/api/v1/projects/${world.project.id}/members/${writer.id}`, { role: 'write' });
    const as = api().as(writer.token);
    expect((await as.get(`${db.base}/credentials`)).status).toBe(403);
    expect((await as.post(`${db.base}/credentials/rotate`)).status).toBe(403);
    expect((await as.get(`${db.base}/principals`)).status).toBe(403);
    expect((await as.post(`${db.base}/principals`, { name: 'x', level: 'nope' })).status).toBe(403);
  });
});

describe('database principals', () => {
  it('at read-only may SELECT and is refused INSERT; at connect may INSERT; both c_ + 8 characters', async () => {
    const db = await database();
    const main = await session(db.physical, db.creds.user, db.creds.password);
    await main.query('create table facts (n int)');
    await main.query('insert into facts values (1)');
    const reader = await principal(db.base, { name: 'bi-tool', level: 'read-only' });
    expect(reader.username).toMatch(/^c_[a-z0-9]{8}$/);
    expect(decodeURIComponent(new URL(reader.url).password)).toBe(reader.password);
    const r = await session(db.physical, reader.username, reader.password);
    expect((await r.query('select n from facts')).rows).toEqual([{ n: 1 }]);
    expect(await sqlState(r, 'insert into facts values (2)')).toBe(INSUFFICIENT_PRIVILEGE);

    const writer = await principal(db.base, { name: 'ci-job', level: 'connect' });
    const w = await session(db.physical, writer.username, writer.password);
    expect(await sqlState(w, 'insert into facts values (3)')).toBeNull();

    const list = await world.as.get<{ principals: Array<Record<string, unknown>> }>(`${db.base}/principals`);
    expect(list.status).toBe(200);
    expect(list.body.principals.map((p) => p.name)).toEqual(['bi-tool', 'ci-job']);
    expect(list.body.principals[0]).toMatchObject({
      username: reader.username,
      expired: false,
      level: 'read-only',
    });
    expect(JSON.stringify(list.body)).not.toContain(reader.password);
    const listing = await world.as.get<{ principals: Array<{ id: string }> }>(`${db.base}/access`);
    expect(listing.body.principals.map((p) => p.id)).toEqual([reader.id, writer.id]);
    const [stored] = await metadata<{ secret_ciphertext: string }>(
      'select secret_ciphertext from principals where id = $1',
      [reader.id],
    );
    expect(stored?.secret_ciphertext).not.toContain(reader.password);
  });

  it('rotate: a new password logs in, the old one is refused, the username stays', async () => {
    const db = await database();
    const p = await principal(db.base, { name: 'partner', level: 'read-only' });
    const res = await world.as.post<Shown>(`${db.base}/principals/${p.id}/rotate`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.username).toBe(p.username);
    expect(await canLogin(db.physical, p.username, p.password)).toBe(false);
    expect(await canLogin(db.physical, p.username, res.body.password)).toBe(true);
  });

  it('revoke ends open sessions and refuses logins; a second DELETE is revoked:false; unknown ids 404', async () => {
    const db = await database();
    const p = await principal(db.base, { name: 'leaver', level: 'connect' });
    const open = await session(db.physical, p.username, p.password);
    expect(await sqlState(open, 'select 1')).toBeNull();
    const first = await world.as.delete(`${db.base}/principals/${p.id}`);
    expect([first.status, first.body]).toEqual([200, { revoked: true }]);
    expect(await sqlState(open, 'select 1')).not.toBeNull();
    expect(await canLogin(db.physical, p.username, p.password)).toBe(false);
    const second = await world.as.delete(`${db.base}/principals/${p.id}`);
    expect([second.status, second.body]).toEqual([200, { revoked: false }]);
    const list = await world.as.get<{ principals: unknown[] }>(`${db.base}/principals`);
    expect(list.body.principals).toEqual([]);
    expect((await world.as.post(`${db.base}/principals/${p.id}/rotate`)).status).toBe(404);
    const unknown = crypto.randomUUID();
    expect((await world.as.delete(`${db.base}/principals/${unknown}`)).status).toBe(404);
    expect((await world.as.post(`${db.base}/principals/${unknown}/rotate`)).status).toBe(404);
    // The name is free again.
    await principal(db.base, { name: 'leaver', level: 'connect' });
  });

  it('after expiry the server refuses the login, the listing says expired, and the reconciler removes it', async () => {
    const db = await database();
    const p = await principal(db.base, { name: 'temp', level: 'read-only', expires_at: hourAhead() });
    const admin = await superuser();
    try {
      const [role] = (
        await admin.query('select rolvaliduntil from pg_roles where rolname = $1', [p.username])
      ).rows as Array<{ rolvaliduntil: Date }>;
      expect(role?.rolvaliduntil.toISOString()).toBe(p.expires_at);
      expect(await canLogin(db.physical, p.username, p.password)).toBe(true);
      // The hour passes: the cluster's VALID UNTIL and the record both move into the past.
      const past = new Date(Date.now() - 1000).toISOString();
      await admin.query(`alter role "${p.username}" valid until '${past}'`);
      await metadata('update principals set expires_at = $2 where id = $1', [p.id, past]);
      expect(await canLogin(db.physical, p.username, p.password)).toBe(false);
      const list = await world.as.get<{ principals: Array<{ id: string; expired: boolean }> }>(
        `${db.base}/principals`,
      );
      expect(list.body.principals).toEqual([expect.objectContaining({ id: p.id, expired: true })]);
      await triggerScheduled();
      const gone = await admin.query('select 1 from pg_roles where rolname = $1', [p.username]);
      expect(gone.rowCount).toBe(0);
      const after = await world.as.get<{ principals: unknown[] }>(`${db.base}/principals`);
      expect(after.body.principals).toEqual([]);
    } finally {
      await admin.end();
    }
  });

  it('refuses bad input with 400 and a taken name with 409 NAME_TAKEN, making nothing', async () => {
    const db = await database();
    await principal(db.base, { name: 'taken', level: 'connect' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', level: 'read' }, 'level'],
      [{ name: 'x', level: 'connect', allowed_sources: ['10.0.0.0/33'] }, 'allowed_sources[0]'],
      [{ name: 'x', level: 'connect', allowed_sources: ['nope'] }, 'allowed_sources[0]'],
      [{ name: 'x', level: 'connect', expires_at: 'tomorrow' }, 'expires_at'],
      [
        { name: 'x', level: 'connect', expires_at: new Date(Date.now() - 60_000).toISOString() },
        'expires_at',
      ],
      [
        { name: 'x', level: 'connect', expires_at: new Date(Date.now() + 400 * 86400_000).toISOString() },
        'expires_at',
      ],
      [{ name: 'Bad Name', level: 'connect' }, 'name'],
    ];
    const before = await metadata('select count(*)::int as n from principals where resource_id = $1', [
      db.id,
    ]);
    for (const [body, field] of cases) {
      const res = await world.as.post<{ error: { code: string; field?: string } }>(
        `${db.base}/principals`,
        body,
      );
      expect([res.status, res.body.error?.field], JSON.stringify(body)).toEqual([400, field]);
    }
    const dup = await world.as.post<{ error: { code: string } }>(`${db.base}/principals`, {
      name: 'taken',
      level: 'read-only',
    });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'NAME_TAKEN']);
    const after = await metadata('select count(*)::int as n from principals where resource_id = $1', [db.id]);
    expect(after).toEqual(before);
    expect(
      (
        await world.as.post(
          `/api/v1/projects/${world.project.id}/databases/${crypto.randomUUID()}/principals`,
          { name: 'x', level: 'connect' },
        )
      ).status,
    ).toBe(404);
  });

  it('a normalised allowlist is kept: bare addresses become /32 and /128, host bits are cleared', async () => {
    const db = await database();
    const p = await principal(db.base, {
      name: 'pinned',
      level: 'connect',
      allowed_sources: ['203.0.113.7', '10.1.2.3/8', '2001:db8::1'],
    });
    expect(p.allowed_sources).toEqual(['203.0.113.7/32', '10.0.0.0/8', '2001:db8::1/128']);
  });

  it('a source allowlist is enforced by the cluster: from 127.0.0.2 refused, from inside allowed', async () => {
    const db = await database();
    const pinned = await principal(db.base, {
      name: 'office',
      level: 'read-only',
      allowed_sources: ['127.0.0.1'],
    });
    const open = await principal(db.base, { name: 'anywhere', level: 'read-only' });
    const partner = await principal(db.base, {
      name: 'partner',
      level: 'read-only',
      allowed_sources: ['127.0.0.2/32'],
    });
    // The local stack's network-policy receiver writes the host rules and reloads within seconds.
    await eventually(
      async () => [
        await canLoginFrom('127.0.0.2', db.physical, pinned.username, pinned.password),
        await canLoginFrom('127.0.0.1', db.physical, partner.username, partner.password),
      ],
      (refused) => refused.every((ok) => !ok),
      20_000,
      'host rules applied',
    );
    expect(await canLoginFrom('127.0.0.1', db.physical, pinned.username, pinned.password)).toBe(true);
    expect(await canLoginFrom('127.0.0.2', db.physical, partner.username, partner.password)).toBe(true);
    // Without an allowlist the cluster's own rules apply (the local stack accepts 127.0.0.1 only).
    expect(await canLoginFrom('127.0.0.1', db.physical, open.username, open.password)).toBe(true);
  });

  it('deleting the database revokes its principals: their roles are gone', async () => {
    const db = await database();
    const p = await principal(db.base, { name: 'gone-with-it', level: 'connect' });
    const del = await world.as.delete(db.base);
    expect(del.status).toBe(200);
    const admin = await superuser();
    try {
      expect((await admin.query('select 1 from pg_roles where rolname = $1', [p.username])).rowCount).toBe(0);
    } finally {
      await admin.end();
    }
    const [row] = await metadata<{ revoked: boolean }>(
      'select revoked_at is not null as revoked from principals where id = $1',
      [p.id],
    );
    expect(row?.revoked).toBe(true);
  });
});
