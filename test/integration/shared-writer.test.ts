/**
 * A connect-level app connected while its database is stopped is handed the database's shared
 * connect login `w_…`, never the main user `u_…` (an admin secret, contract §7), on PostgreSQL
 * and on MongoDB alike; and a main password that reached an app before that is changed once by
 * the reconciler, after the app moved to the shared login. Real Worker, real cluster, real
 * logins; MongoDB through the Atlas stand-in.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveriesOf, metadata, type Seeded, seed } from '../helpers/connections';
import { connectionsWorldForFile } from '../helpers/for-file';
import { canLogin, loginAs, superuser } from '../helpers/pg-login';
import { triggerScheduled } from '../helpers/worker';

const world = connectionsWorldForFile();
let p: Seeded;
let su: pg.Client;
const base = () => `/api/v1/projects/${p.project.id}`;
const siteConns = (i: number) => `${base()}/sites/${p.sites[i]?.id}/connections`;
const tick = () => triggerScheduled(world.worker.baseUrl);

async function effective(i: number): Promise<Record<string, string>> {
  const res = await p.as.get<{ vars: Record<string, string> }>(
    `${base()}/sites/${p.sites[i]?.id}/env/effective`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.vars;
}

function loginOf(url: string | undefined) {
  const u = new URL(url ?? '');
  return { db: u.pathname.slice(1), user: u.username, password: decodeURIComponent(u.password) };
}

/** A database made through the API, with its physical name and main login. */
async function database(engine: 'postgresql' | 'mongodb' = 'postgresql') {
  const made = await p.as.post<{ id: string }>(`${base()}/databases`, {
    name: `w_${randomBytes(4).toString('hex')}`,
    engine,
  });
  expect(made.status, made.text).toBe(201);
  const main = await p.as.get<{ user: string; password: string; url: string }>(
    `${base()}/databases/${made.body.id}/credentials`,
  );
  return { id: made.body.id, physical: new URL(main.body.url).pathname.slice(1), main: main.body };
}

/** Runs `work` with the stopped database letting sessions in again (as only the superuser can). */
async function whileOpen<T>(physical: string, work: () => Promise<T>): Promise<T> {
  await su.query(`ALTER DATABASE "${physical}" WITH ALLOW_CONNECTIONS true`);
  try {
    return await work();
  } finally {
    await su.query(`ALTER DATABASE "${physical}" WITH ALLOW_CONNECTIONS false`);
  }
}

beforeAll(async () => {
  p = await seed(world.worker.baseUrl, 3);
  su = await superuser();
}, 120_000);
afterAll(async () => {
  await su?.end();
});

describe('a connect-level app connected while its database is stopped', () => {
  it('PostgreSQL: gets the shared connect login w_…, which writes, and never the main user or password', async () => {
    const db = await database();
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    const res = await p.as.post(siteConns(0), { kind: 'database', resource_id: db.id, level: 'connect' });
    expect(res.status, res.text).toBe(201);
    const vars = await effective(0);
    const login = loginOf(vars.DATABASE_URL);
    expect(login.user).toBe(`w_${db.physical}`);
    expect(JSON.stringify(vars)).not.toContain(db.main.password);
    expect(JSON.stringify(vars)).not.toContain(db.main.user);
    await whileOpen(db.physical, async () => {
      const app = await loginAs(login.db, login.user, login.password);
      try {
        await app.query('CREATE TABLE notes (body text)');
        await app.query(`INSERT INTO notes VALUES ('hi')`);
        expect((await app.query('SELECT body FROM notes')).rows).toEqual([{ body: 'hi' }]);
      } finally {
        await app.end();
      }
      // The main password still logs in: nothing the app holds changed it, nor can the app use it.
      expect(await canLogin(db.physical, db.main.user, db.main.password)).toBe(true);
    });
    // Rotating the main password moves nothing the app holds: no patch, the same variables.
    const patches = (await deliveriesOf(p.sites[0]?.id as string)).length;
    expect((await p.as.post(`${base()}/databases/${db.id}/credentials/rotate`)).status).toBe(200);
    expect((await deliveriesOf(p.sites[0]?.id as string)).length).toBe(patches);
    expect((await effective(0)).DATABASE_URL).toBe(vars.DATABASE_URL);
  });

  it('PostgreSQL: once the database runs, the app moves to its own c_ role and the w_ password it held stops working', async () => {
    const db = await database();
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    expect(
      (await p.as.post(siteConns(1), { kind: 'database', resource_id: db.id, level: 'connect' })).status,
    ).toBe(201);
    const handed = loginOf((await effective(1)).DATABASE_URL);
    expect(handed.user).toBe(`w_${db.physical}`);
    expect((await p.as.post(`${base()}/databases/${db.id}/start`)).status).toBe(200);
    await tick();
    const own = loginOf((await effective(1)).DATABASE_URL);
    expect(own.user).toMatch(/^c_[a-z0-9]{8}$/);
    expect(await canLogin(own.db, own.user, own.password)).toBe(true);
    expect(await canLogin(handed.db, handed.user, handed.password)).toBe(false);
  });

  it('MongoDB (replica set): gets a shared connect user w_… with readWrite on that database, never the main user', async () => {
    const db = await database('mongodb');
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    const res = await p.as.post(siteConns(2), { kind: 'database', resource_id: db.id, level: 'connect' });
    expect(res.status, res.text).toBe(201);
    const vars = await effective(2);
    const login = loginOf(vars.MONGODB_URI);
    expect(login.user).toBe(`w_${db.physical}`);
    expect(JSON.stringify(vars)).not.toContain(db.main.password);
    expect(world.atlas.authenticates(login.user, login.password)).toBe(true);
    expect(world.atlas.user(login.user)?.roles).toEqual([
      { roleName: 'readWrite', databaseName: db.physical },
    ]);
  });
});

describe('a main password handed to an app before shared logins', () => {
  it('is changed once by the reconciler after the app moved to w_ by live patch; the old one is refused', async () => {
    // Two sites, so the new database connects none of them by itself.
    p = await seed(world.worker.baseUrl, 2);
    const db = await database();
    expect((await p.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
    expect(
      (await p.as.post(siteConns(0), { kind: 'database', resource_id: db.id, level: 'connect' })).status,
    ).toBe(201);
    // As before shared logins: no w_ login on the cluster or in the row, the app on the main
    // user, and the migration's mark on the database.
    await su.query(`DROP OWNED BY "w_${db.physical}"; DROP ROLE "w_${db.physical}"`);
    await metadata(
      `update databases set writer_user = null, writer_password_ciphertext = null, writer_handed = false,
         main_exposed = true where id = $1`,
      [db.id],
    );
    expect(loginOf((await effective(0)).DATABASE_URL).user).toBe(db.main.user);
    const site = p.sites[0]?.id as string;
    const patchesBefore = (await deliveriesOf(site)).length;

    await tick();

    const moved = loginOf((await effective(0)).DATABASE_URL);
    expect(moved.user).toBe(`w_${db.physical}`);
    const patches = (await deliveriesOf(site)).slice(patchesBefore);
    expect(patches.map((d) => d.reason)).toContain('credential');
    const now = await p.as.get<{ user: string; password: string }>(
      `${base()}/databases/${db.id}/credentials`,
    );
    expect(now.body.user).toBe(db.main.user);
    expect(now.body.password).not.toBe(db.main.password);
    await whileOpen(db.physical, async () => {
      expect(await canLogin(db.physical, db.main.user, db.main.password)).toBe(false);
      expect(await canLogin(db.physical, db.main.user, now.body.password)).toBe(true);
      expect(await canLogin(moved.db, moved.user, moved.password)).toBe(true);
    });
    const [mark] = await metadata<{ main_exposed: boolean }>(
      'select main_exposed from databases where id = $1',
      [db.id],
    );
    expect(mark?.main_exposed).toBe(false);
    // Once: a later tick leaves the new main password alone.
    await tick();
    const again = await p.as.get<{ password: string }>(`${base()}/databases/${db.id}/credentials`);
    expect(again.body.password).toBe(now.body.password);
  });
});
