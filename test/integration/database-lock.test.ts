/**
 * One lock a database: every change Tether makes to a database and its roles, by a route or by
 * the reconciler, waits for the database's lock first, so a stop never interleaves with a repair
 * of one of its roles (PostgreSQL refused the later of the two as "tuple concurrently updated"
 * and the stop answered 503). Deterministic: the test itself holds the lock, sees each change
 * wait on it with nothing done, then lets go.
 *
 * A rotate holds the lock from the new password until its stored record: the change is made in
 * a transaction that commits only after the stored write, so a reconciler tick in between finds
 * the stored password still working and repairs nothing (it used to set the old one back, and
 * the app was then handed a password the cluster refused). Forced: the test holds the
 * connection's row so the rotate's stored write waits, and runs a tick in that window.
 */
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { lockSecret, privilegesLock } from '../../functions/adapters/postgres-sql';
import { randomPassword } from '../../functions/lib/ids';
import { connectSite, metadata } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { canLogin, clusterAdmin, customerAdminUrl, localPostgresAdmin, superuser } from '../helpers/pg-login';
import { postgresPrincipalsForFile } from '../helpers/postgres-principals';
import { triggerScheduled } from '../helpers/worker';

// Two sites, so a new database is connected to none until a test connects it.
const { world, sessions, database } = postgresPrincipalsForFile(2);

/** A session in the admin's own database (where the Worker takes the lock) holding `physical`'s lock. */
async function holdLock(physical: string) {
  const holder = await clusterAdmin(new URL(customerAdminUrl()).pathname.slice(1) || 'postgres');
  sessions.push(holder);
  await holder.query('begin');
  await holder.query(privilegesLock(lockSecret(customerAdminUrl()), physical));
  /** How many sessions wait for the lock this holder has. */
  const waiters = async () =>
    (
      await holder.query<{ n: number }>(`
        select count(*)::int as n from pg_locks w join pg_locks h
          on h.locktype = 'advisory' and h.granted and h.pid = pg_backend_pid()
         and (h.database, h.classid, h.objid, h.objsubid) = (w.database, w.classid, w.objid, w.objsubid)
         where w.locktype = 'advisory' and not w.granted`)
    ).rows[0]?.n ?? 0;
  return {
    /** Resolves once `n` other sessions wait for the lock. */
    waitedBy: (n = 1) => eventually(waiters, (x) => x >= n, 3_000, 'a change waiting for the lock'),
    release: () => holder.query('commit'),
  };
}

async function cluster<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const admin = await superuser();
  try {
    return (await admin.query<T>(text, values)).rows;
  } finally {
    await admin.end();
  }
}
const allowsConnections = async (physical: string) =>
  (
    await cluster<{ ok: boolean }>('select datallowconn as ok from pg_database where datname = $1', [
      physical,
    ])
  )[0]?.ok;

/** Whether the Worker's lock of `physical` is free (taken and let go at once by the test). */
async function lockFree(physical: string): Promise<boolean> {
  const session = await clusterAdmin(new URL(customerAdminUrl()).pathname.slice(1) || 'postgres');
  try {
    // The Worker's own statement for the lock, trying instead of waiting.
    const take = privilegesLock(lockSecret(customerAdminUrl()), physical);
    const [row] = (
      await session.query<{ ok: boolean }>(
        `${take.replace('pg_advisory_xact_lock', 'pg_try_advisory_xact_lock')} as ok`,
      )
    ).rows;
    return row?.ok === true;
  } finally {
    await session.end();
  }
}

/** The stored login of the site's connection to `dbId`: its id, role name and password (as the app has it). */
async function storedLogin(site: string, dbId: string) {
  const [row] = await metadata<{ id: string }>(
    'select id from connections where site_id = $1 and resource_id = $2',
    [site, dbId],
  );
  const effective = await world.as.get<{ vars: Record<string, string> }>(
    `/api/v1/projects/${world.project.id}/sites/${site}/env/effective`,
  );
  const url = new URL(effective.body.vars.DATABASE_URL as string);
  return { id: row?.id as string, name: url.username, password: decodeURIComponent(url.password) };
}

/** Runs `change` while the test holds `physical`'s lock: it waits, has done nothing, then completes. */
async function waitsForLock<T>(physical: string, change: () => Promise<T>, unchanged: () => Promise<void>) {
  const lock = await holdLock(physical);
  let settled = false;
  const running = change().finally(() => {
    settled = true;
  });
  try {
    await lock.waitedBy();
    expect(settled).toBe(false);
    await unchanged();
  } finally {
    await lock.release();
  }
  return running;
}

describe("a database's lock", () => {
  it('a stop waits for a change of one of its roles, then answers 200 and the database refuses logins', async () => {
    const db = await database();
    const path = `${db.base}/stop`;
    const stopped = await waitsForLock(
      db.physical,
      () => world.as.post(path),
      async () => expect(await allowsConnections(db.physical)).toBe(true),
    );
    expect(stopped.status, stopped.text).toBe(200);
    expect(await allowsConnections(db.physical)).toBe(false);
    expect((await world.as.post(`${db.base}/start`)).status).toBe(200);
  });

  it('every change of a login (password, level, drop) and a start wait for it too', async () => {
    const db = await database();
    const admin = localPostgresAdmin();
    const login = await admin.createLogin(db.physical, 'connect', true);
    const password = randomPassword();
    await waitsForLock(
      db.physical,
      () => admin.setLoginPassword(db.physical, login.name, password),
      async () => expect(await canLogin(db.physical, login.name, login.password)).toBe(true),
    );
    expect(await canLogin(db.physical, login.name, password)).toBe(true);
    await waitsForLock(
      db.physical,
      () => admin.setLoginLevel(db.physical, login.name, 'read-only', true),
      async () => undefined,
    );
    await admin.setRunning(db.physical, false);
    await waitsForLock(
      db.physical,
      () => admin.setRunning(db.physical, true),
      async () => expect(await allowsConnections(db.physical)).toBe(false),
    );
    expect(await allowsConnections(db.physical)).toBe(true);
    await waitsForLock(
      db.physical,
      () => admin.dropLogin(db.physical, login.name),
      async () => expect(await canLogin(db.physical, login.name, password)).toBe(true),
    );
    expect(await canLogin(db.physical, login.name, password)).toBe(false);
  });

  it("the reconciler's repair of a refused login waits for it: recorded and retried, never set beside a stop", async () => {
    const db = await database();
    const site = world.sites[0]?.id as string;
    expect((await connectSite(world, { kind: 'database', resource_id: db.id }, site)).status).toBe(201);
    const [row] = await metadata<{ id: string; name: string }>(
      'select id, credential_name as name from connections where site_id = $1 and resource_id = $2',
      [site, db.id],
    );
    const effective = await world.as.get<{ vars: Record<string, string> }>(
      `/api/v1/projects/${world.project.id}/sites/${site}/env/effective`,
    );
    const url = new URL(effective.body.vars.DATABASE_URL as string);
    const stored = decodeURIComponent(url.password);
    expect(url.username).toBe(row?.name);
    expect(await canLogin(db.physical, row?.name as string, stored)).toBe(true);
    // A stop of the database holds the lock through the whole tick (taken first, so the stack's
    // own minute tick cannot repair before the test looks): the repair's wait runs out.
    const lock = await holdLock(db.physical);
    try {
      // The cluster no longer takes the stored password (changed by hand).
      await cluster(`alter role "${row?.name}" password '${randomPassword()}'`);
      expect(await canLogin(db.physical, row?.name as string, stored)).toBe(false);
      await triggerScheduled();
      expect(await canLogin(db.physical, row?.name as string, stored)).toBe(false);
    } finally {
      await lock.release();
    }
    const [failure] = await metadata<{ last_error: string }>(
      `select last_error from reconcile_failures where step = 'sweep:database-credentials' and item_id = $1`,
      [row?.id],
    );
    expect(failure?.last_error).toMatch(/lock timeout/);
    // Its backoff passed (moved, as time would move it): the retry repairs it.
    await metadata(
      `update reconcile_failures set retry_at = now() - interval '1 second' where step = 'sweep:database-credentials' and item_id = $1`,
      [row?.id],
    );
    await triggerScheduled();
    expect(await canLogin(db.physical, row?.name as string, stored)).toBe(true);
  });

  it("a rotate holds it until the new password is stored: a tick in between repairs nothing, and the app's new password works", async () => {
    const db = await database();
    // The second site: the first holds an earlier test's database as its DATABASE_URL.
    const site = world.sites[1]?.id as string;
    expect((await connectSite(world, { kind: 'database', resource_id: db.id }, site)).status).toBe(201);
    const before = await storedLogin(site, db.id);
    expect(await canLogin(db.physical, before.name, before.password)).toBe(true);
    // The test holds the connection's row: the rotate's stored write waits for it.
    const row = new pg.Client({ connectionString: inject('metadataUrl') });
    await row.connect();
    let rotate: Promise<{ status: number; text: string }> | undefined;
    try {
      await row.query('begin');
      await row.query('select 1 from connections where id = $1 for update', [before.id]);
      const holder = (await row.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
      // The immediate rotate (docs/contract.md §14) changes the same login's password in place.
      rotate = world.as.post(
        `/api/v1/projects/${world.project.id}/sites/${site}/connections/database/${db.id}/rotate?immediate=true`,
      );
      await eventually(
        async () =>
          (
            await metadata<{ n: number }>(
              'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
              [holder],
            )
          )[0]?.n ?? 0,
        (n) => n >= 1,
        5_000,
        "the rotate's stored write waiting",
      );
      // The new password is made but not in effect, and the database's lock is held.
      expect(await lockFree(db.physical)).toBe(false);
      expect(await canLogin(db.physical, before.name, before.password)).toBe(true);
      // A reconciler tick in the window (every credential checked): nothing to repair.
      await triggerScheduled();
      await row.query('commit');
    } finally {
      await row.query('rollback').catch(() => undefined);
      await row.end();
    }
    const rotated = await rotate;
    expect(rotated?.status, rotated?.text).toBe(204);
    const after = await storedLogin(site, db.id);
    expect(after.password).not.toBe(before.password);
    expect(await canLogin(db.physical, after.name, after.password)).toBe(true);
    expect(await canLogin(db.physical, before.name, before.password)).toBe(false);
    expect(await lockFree(db.physical)).toBe(true);
  });
});
