/**
 * A read-only app connected while its PostgreSQL database is stopped is handed the database's
 * shared read-only login `r_…`, never the main user (a member of `<db>_rw`), and once it has
 * its own credential the password it was handed stops working. Real Worker, real
 * cluster, real logins.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { metadata, type Seeded, seed } from '../helpers/connections';
import { canLogin, loginAs, sqlState, superuser } from '../helpers/pg-login';
import { triggerScheduled } from '../helpers/worker';

const INSUFFICIENT_PRIVILEGE = '42501';
let p: Seeded;
let su: pg.Client;
const base = () => `/api/v1/projects/${p.project.id}`;
const siteConns = (i: number) => `${base()}/sites/${p.sites[i]?.id}/connections`;

async function effectiveLogin(i: number) {
  const res = await p.as.get<{ vars: Record<string, string> }>(
    `${base()}/sites/${p.sites[i]?.id}/env/effective`,
  );
  const url = new URL(res.body.vars.DATABASE_URL as string);
  return { db: url.pathname.slice(1), user: url.username, password: decodeURIComponent(url.password) };
}

/** A database with a table `notes` (one row), made through the API and its main user. */
async function databaseWithTable(): Promise<{ id: string; physical: string }> {
  const made = await p.as.post<{ id: string }>(`${base()}/databases`, {
    name: `ro_${randomBytes(4).toString('hex')}`,
    engine: 'postgresql',
  });
  expect(made.status, made.text).toBe(201);
  const main = await p.as.get<{ user: string; password: string; database: string }>(
    `${base()}/databases/${made.body.id}/credentials`,
  );
  const [row] = await metadata<{ physical: string }>(
    'select physical_name as physical from databases where id = $1',
    [made.body.id],
  );
  const physical = row?.physical as string;
  const client = await loginAs(physical, main.body.user, main.body.password);
  await client.query(`CREATE TABLE notes (body text); INSERT INTO notes VALUES ('hello')`);
  await client.end();
  return { id: made.body.id, physical };
}

/** Runs `work` with the stopped database letting sessions in again (as only the superuser can), to try a login's rights. */
async function whileOpen<T>(physical: string, work: () => Promise<T>): Promise<T> {
  await su.query(`ALTER DATABASE "${physical}" WITH ALLOW_CONNECTIONS true`);
  try {
    return await work();
  } finally {
    await su.query(`ALTER DATABASE "${physical}" WITH ALLOW_CONNECTIONS false`);
  }
}

beforeAll(async () => {
  p = await seed(inject('baseUrl'), 2);
  su = await superuser();
});
afterAll(() => su?.end());

describe('a read-only connection made while the database is stopped', () => {
  it('is handed the shared read-only login: it logs in and reads, and may not write', async () => {
    const db = await databaseWithTable();
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    const res = await p.as.post(siteConns(0), { kind: 'database', resource_id: db.id, level: 'read-only' });
    expect(res.status, res.text).toBe(201);
    const login = await effectiveLogin(0);
    expect(login.user).toBe(`r_${db.physical}`);
    const memberOfOwner = await su.query('SELECT pg_has_role($1, $2, $3) AS m', [
      login.user,
      `${db.physical}_rw`,
      'member',
    ]);
    expect(memberOfOwner.rows[0]?.m).toBe(false);
    await whileOpen(db.physical, async () => {
      const app = await loginAs(login.db, login.user, login.password);
      try {
        expect((await app.query('SELECT body FROM notes')).rows).toEqual([{ body: 'hello' }]);
        expect(await sqlState(app, `INSERT INTO notes VALUES ('no')`)).toBe(INSUFFICIENT_PRIVILEGE);
        expect(await sqlState(app, 'CREATE TABLE mine (x int)')).toBe(INSUFFICIENT_PRIVILEGE);
      } finally {
        await app.end();
      }
    });
  });

  it('once the database runs, the app moves to its own c_ role and the shared read-only password it held stops working', async () => {
    const db = await databaseWithTable();
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    expect(
      (await p.as.post(siteConns(1), { kind: 'database', resource_id: db.id, level: 'read-only' })).status,
    ).toBe(201);
    const handed = await effectiveLogin(1);
    expect(handed.user).toBe(`r_${db.physical}`);
    expect((await p.as.post(`${base()}/databases/${db.id}/start`)).status).toBe(200);
    // The start queues the switch; the reconciler's run settles it either way.
    await triggerScheduled();
    const own = await effectiveLogin(1);
    expect(own.user).toMatch(/^c_[a-z0-9]{8}$/);
    expect(await canLogin(own.db, own.user, own.password)).toBe(true);
    expect(await canLogin(handed.db, handed.user, handed.password)).toBe(false);
  });

  it('once the only app holding it is disconnected, the reconciler changes the shared read-only password', async () => {
    p = await seed(inject('baseUrl'), 2);
    const db = await databaseWithTable();
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    const made = await p.as.post<{ id: string }>(siteConns(0), {
      kind: 'database',
      resource_id: db.id,
      level: 'read-only',
    });
    expect(made.status, made.text).toBe(201);
    const handed = await effectiveLogin(0);
    expect(handed.user).toBe(`r_${db.physical}`);
    const gone = await p.as.delete(`${siteConns(0)}/database/${db.id}`);
    expect(gone.status, gone.text).toBe(200);
    await whileOpen(db.physical, async () => {
      expect(await canLogin(handed.db, handed.user, handed.password)).toBe(true);
    });
    await triggerScheduled();
    await whileOpen(db.physical, async () => {
      expect(await canLogin(handed.db, handed.user, handed.password)).toBe(false);
    });
  });

  it('a database made before the shared read-only login gets one when a read-only app is first handed it', async () => {
    p = await seed(inject('baseUrl'), 2);
    const db = await databaseWithTable();
    // As it was before: no r_ login on the cluster, none in its row.
    await su.query(`REVOKE CONNECT ON DATABASE "${db.physical}" FROM "r_${db.physical}"`);
    await su.query(`DROP ROLE "r_${db.physical}"`);
    await metadata(
      'update databases set reader_user = null, reader_password_ciphertext = null where id = $1',
      [db.id],
    );
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    expect(
      (await p.as.post(siteConns(0), { kind: 'database', resource_id: db.id, level: 'read-only' })).status,
    ).toBe(201);
    const login = await effectiveLogin(0);
    expect(login.user).toBe(`r_${db.physical}`);
    await whileOpen(db.physical, async () => {
      expect(await canLogin(login.db, login.user, login.password)).toBe(true);
    });
  });
});
