/**
 * Per-connection PostgreSQL credentials on the real local cluster, through the admin adapter and
 * the credentials service, with apps logging in for real.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Adapters } from '../../functions/adapters';
import type { ClusterPostgresAdmin } from '../../functions/adapters/postgres-admin';
import type { Bindings } from '../../functions/config';
import type { DatabaseLevel } from '../../functions/domain/levels';
import { customerCluster } from '../../functions/kinds/postgresql/postgresql-system';
import { loadConfig } from '../../functions/kinds/registry';
import { ApiError } from '../../functions/lib/errors';
import { randomLowerAlnum, randomPassword } from '../../functions/lib/ids';
import {
  commitRotation,
  createConnectionCredential,
  dropCredential,
  rotateCredential,
  setCredentialLevel,
} from '../../functions/use-cases/credentials/connection-credential';
import type { DatabaseRow } from '../../functions/use-cases/resources/databases';
import { freePort } from '../../scripts/local/net';
import { adapterOf, adaptersWith } from '../helpers/adapters';
import { databaseTarget } from '../helpers/credential-targets';
import { eventually } from '../helpers/eventually';
import { canLogin, localPostgresAdmin, loginAs, roleExists, sqlState, superuser } from '../helpers/pg-login';

const INSUFFICIENT_PRIVILEGE = '42501';

let admin: ClusterPostgresAdmin;
let adapters: Adapters;
const config = () => loadConfig(inject('workerEnv') as unknown as Bindings);
const physical = `pgcred_${randomLowerAlnum(8)}`;
const mainUser = `u_${physical}`;
const mainPassword = randomPassword();
const sessions: pg.Client[] = [];

const target = (over: Partial<DatabaseRow> = {}) => databaseTarget(physical, over);

async function own(level: DatabaseLevel): Promise<{ name: string; secret: string }> {
  const made = await createConnectionCredential(
    { adapters, config: config() },
    { target: target(), level: { kind: 'database', level } },
  );
  if (made.mode !== 'own') throw new Error('expected an own credential');
  return made;
}

async function session(user: string, password: string): Promise<pg.Client> {
  const client = await loginAs(physical, user, password);
  sessions.push(client);
  return client;
}

beforeAll(async () => {
  admin = localPostgresAdmin();
  adapters = adaptersWith(adapterOf(customerCluster, admin));
  await admin.createDatabase(physical, mainUser, mainPassword);
  // A table made outside the shared owner (by the cluster's admin role) before any read-only app exists.
  await admin.run((c) => c.query('CREATE TABLE public.made_by_admin (id int)'), physical);
});

afterAll(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
  // This file's roles only (members of its database's groups): the files running beside it share
  // the cluster, and dropping their roles would end their sessions (and took 25 s of a full run).
  const mine = (await admin.listLogins()).filter((l) => l.groups.some((g) => g.startsWith(`${physical}_`)));
  await admin.dropDatabase(physical, [mainUser, ...mine.map((l) => l.name)]).catch(() => undefined);
});

describe('PostgreSQL per-connection roles', () => {
  it('names the role c_ plus 8 of [a-z0-9]', async () => {
    const a = await own('connect');
    expect(a.name).toMatch(/^c_[a-z0-9]{8}$/);
    expect(await canLogin(physical, a.name, a.secret)).toBe(true);
  });

  it('connect apps share the owner role: one creates a table, another alters it', async () => {
    const a = await own('connect');
    const b = await own('connect');
    const sa = await session(a.name, a.secret);
    await sa.query('CREATE TABLE shared_t (id int primary key, v text)');
    await sa.query("INSERT INTO shared_t VALUES (1, 'one')");
    const owner = await sa.query("SELECT tableowner FROM pg_tables WHERE tablename = 'shared_t'");
    expect(owner.rows[0].tableowner).toBe(`${physical}_rw`);
    const sb = await session(b.name, b.secret);
    await sb.query('ALTER TABLE shared_t ADD COLUMN extra int');
    await sb.query('UPDATE shared_t SET extra = 2 WHERE id = 1');
    expect((await sa.query('SELECT extra FROM shared_t')).rows[0].extra).toBe(2);
  });

  it('read-only reads every schema, tables made later included, and is refused writes and DDL', async () => {
    const writer = await own('connect');
    const sw = await session(writer.name, writer.secret);
    await sw.query('CREATE TABLE IF NOT EXISTS before_ro (id int)');
    await sw.query('INSERT INTO before_ro VALUES (1)');
    const ro = await own('read-only');
    const sr = await session(ro.name, ro.secret);
    expect((await sr.query('SELECT count(*)::int AS n FROM before_ro')).rows[0].n).toBe(1);
    expect((await sr.query('SELECT count(*)::int AS n FROM made_by_admin')).rows[0].n).toBe(0);
    await sw.query('CREATE SCHEMA later_schema');
    await sw.query('CREATE TABLE later_schema.after_ro (id serial, v text)');
    await sw.query("INSERT INTO later_schema.after_ro (v) VALUES ('x')");
    expect((await sr.query('SELECT v FROM later_schema.after_ro')).rows[0].v).toBe('x');
    expect(await sqlState(sr, 'INSERT INTO before_ro VALUES (2)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, 'UPDATE before_ro SET id = 3')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, 'DELETE FROM before_ro')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, 'CREATE TABLE ro_made (id int)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, 'CREATE SCHEMA ro_schema')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, 'CREATE TEMP TABLE ro_tmp (id int)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, 'DROP TABLE before_ro')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, `SET ROLE ${physical}_rw`)).toBe(INSUFFICIENT_PRIVILEGE);
    // Large objects are data too: only the shared owner may create them.
    expect(await sqlState(sr, 'SELECT lo_create(0)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sr, "SELECT lo_from_bytea(0, '\\xdeadbeef')")).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sw, 'SELECT lo_unlink(lo_create(0))')).toBeNull();
    expect((await sw.query('SELECT count(*)::int AS n FROM before_ro')).rows[0].n).toBe(1);
  });

  it('a connect app that steps out of the shared owner (SET ROLE NONE) can make or take over nothing', async () => {
    const a = await own('connect');
    const sa = await session(a.name, a.secret);
    await sa.query('CREATE TABLE IF NOT EXISTS escape_t (id int)');
    await sa.query('SET ROLE NONE');
    expect((await sa.query('SELECT current_user AS u')).rows[0].u).toBe(a.name);
    expect(await sqlState(sa, 'CREATE TABLE escaped (id int)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sa, 'CREATE SCHEMA escaped_schema')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sa, 'CREATE TEMP TABLE escaped_tmp (id int)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sa, `ALTER TABLE escape_t OWNER TO "${a.name}"`)).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(sa, 'INSERT INTO escape_t VALUES (1)')).toBe(INSUFFICIENT_PRIVILEGE);
    // Back as the shared owner, everything works as before.
    await sa.query(`SET ROLE "${physical}_rw"`);
    await sa.query('INSERT INTO escape_t VALUES (1)');
  });

  it('a move to read-only leaves the app nothing it can write, even what its role owned', async () => {
    const c = await own('connect');
    const su = await superuser(physical);
    await su.query(`CREATE TABLE legacy_owned (id int); ALTER TABLE legacy_owned OWNER TO "${c.name}"`);
    await su.end();
    await setCredentialLevel(
      { adapters, config: config() },
      { target: target(), name: c.name, level: { kind: 'database', level: 'read-only' } },
    );
    const s = await session(c.name, c.secret);
    await s.query('SET ROLE NONE');
    expect((await s.query('SELECT count(*)::int AS n FROM legacy_owned')).rows[0].n).toBe(0);
    expect(await sqlState(s, 'INSERT INTO legacy_owned VALUES (1)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await sqlState(s, 'ALTER TABLE legacy_owned ADD COLUMN x int')).toBe(INSUFFICIENT_PRIVILEGE);
    const owner = await s.query("SELECT tableowner FROM pg_tables WHERE tablename = 'legacy_owned'");
    expect(owner.rows[0].tableowner).toBe(`${physical}_rw`);
  });

  it('a level change keeps name and password, changes grants and ends open sessions', async () => {
    const c = await own('read-only');
    const s1 = await session(c.name, c.secret);
    expect(await sqlState(s1, 'CREATE TABLE lvl_t (id int)')).toBe(INSUFFICIENT_PRIVILEGE);
    await setCredentialLevel(
      { adapters, config: config() },
      { target: target(), name: c.name, level: { kind: 'database', level: 'connect' } },
    );
    expect(await sqlState(s1, 'SELECT 1')).not.toBeNull();
    const s2 = await session(c.name, c.secret);
    await s2.query('CREATE TABLE lvl_t (id int)');
    await setCredentialLevel(
      { adapters, config: config() },
      { target: target(), name: c.name, level: { kind: 'database', level: 'read-only' } },
    );
    const s3 = await session(c.name, c.secret);
    expect((await s3.query('SELECT count(*)::int AS n FROM lvl_t')).rows[0].n).toBe(0);
    expect(await sqlState(s3, 'INSERT INTO lvl_t VALUES (1)')).toBe(INSUFFICIENT_PRIVILEGE);
  });

  it('rotate: the old password fails, the new one works, other roles and the main user are untouched', async () => {
    const a = await own('connect');
    const other = await own('connect');
    const rotated = await rotateCredential(
      { adapters, config: config() },
      { target: target(), name: a.name },
    );
    // Held until its caller stored the new password: the old one works until it commits.
    expect(await canLogin(physical, a.name, a.secret)).toBe(true);
    await commitRotation({ adapters, config: config() }, { target: target(), credential: rotated });
    expect(rotated.name).toBe(a.name);
    expect(rotated.secret).not.toBe(a.secret);
    expect(await canLogin(physical, a.name, a.secret)).toBe(false);
    expect(await canLogin(physical, a.name, rotated.secret)).toBe(true);
    expect(await canLogin(physical, other.name, other.secret)).toBe(true);
    expect(await canLogin(physical, mainUser, mainPassword)).toBe(true);
  });

  it('drop ends open sessions at once, refuses login, removes only that role, and is idempotent', async () => {
    const a = await own('connect');
    const keep = await own('connect');
    const sa = await session(a.name, a.secret);
    await sa.query('CREATE TABLE IF NOT EXISTS survives (id int)');
    // The app role cannot own anything by itself any more; a role from before could.
    const su = await superuser(physical);
    await su.query(
      `CREATE TABLE owned_by_app_role (id int); ALTER TABLE owned_by_app_role OWNER TO "${a.name}"`,
    );
    await su.end();
    await dropCredential({ adapters, config: config() }, { target: target(), name: a.name });
    expect(await sqlState(sa, 'SELECT 1')).not.toBeNull();
    expect(await canLogin(physical, a.name, a.secret)).toBe(false);
    expect(await roleExists(a.name)).toBe(false);
    expect(await roleExists(keep.name)).toBe(true);
    const sk = await session(keep.name, keep.secret);
    // What the dropped role made stays, owned by the shared owner role.
    await sk.query('ALTER TABLE owned_by_app_role ADD COLUMN x int');
    await sk.query('SELECT * FROM survives');
    await dropCredential({ adapters, config: config() }, { target: target(), name: a.name });
  });

  it('lists connection roles with their groups and creation time', async () => {
    const a = await own('read-only');
    const found = (await admin.listLogins()).find((l) => l.name === a.name);
    expect(found?.groups).toEqual([`${physical}_ro`]);
    expect(Math.abs((found?.createdAt?.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
  });
});

describe('shared credential and failures', () => {
  it('a failed role creation leaves no password in the server log: only a SCRAM verifier is sent', async () => {
    const name = `c_${randomLowerAlnum(8)}`;
    const password = randomPassword();
    // No such database: the batch fails after CREATE ROLE, and the server logs the statement.
    await expect(
      admin.createLogin(`nodb_${randomLowerAlnum(8)}`, 'connect', true, { name, password }),
    ).rejects.toThrow();
    const log = await eventually(
      () => readFile(join(inject('dataDir'), 'postgres.log'), 'utf8'),
      (text) => text.includes(`CREATE ROLE "${name}"`),
      10_000,
      'the failed statement in the server log',
    );
    expect(log).toMatch(new RegExp(`CREATE ROLE "${name}" LOGIN PASSWORD 'SCRAM-SHA-256\\$4096:`));
    expect(log).not.toContain(password);
    expect(await roleExists(name)).toBe(false);
  });

  it('a stopped database and a standalone MongoDB are served by the shared credential', async () => {
    expect(
      await createConnectionCredential(
        { adapters, config: config() },
        {
          target: target({ status: 'stopped' }),
          level: {
            kind: 'database',
            level: 'connect',
          },
        },
      ),
    ).toEqual({
      mode: 'shared',
    });
    const standalone = target({ engine: 'mongodb', replicaSet: false });
    expect(
      await createConnectionCredential(
        { adapters, config: config() },
        {
          target: standalone,
          level: {
            kind: 'database',
            level: 'connect',
          },
        },
      ),
    ).toEqual({
      mode: 'shared',
    });
  });

  it('an unreachable cluster answers 503 and leaves no role behind', async () => {
    const closed = new URL(inject('adminUrl'));
    closed.port = String(await freePort());
    const down = adaptersWith(adapterOf(customerCluster, localPostgresAdmin(closed.toString())));
    // This file's database only: other files make and drop roles on the shared cluster meanwhile.
    const ours = async () =>
      (await admin.listLogins())
        .filter((l) => l.groups.some((g) => g === `${physical}_rw` || g === `${physical}_ro`))
        .map((l) => l.name)
        .sort();
    const before = await ours();
    expect(before.length).toBeGreaterThan(0);
    const attempt = createConnectionCredential(
      { adapters: down, config: config() },
      {
        target: target(),
        level: {
          kind: 'database',
          level: 'connect',
        },
      },
    );
    await expect(attempt).rejects.toBeInstanceOf(ApiError);
    await expect(attempt).rejects.toMatchObject({ status: 503 });
    await expect(
      rotateCredential(
        { adapters: down, config: config() },
        { target: target(), name: before[0] ?? 'c_00000000' },
      ),
    ).rejects.toMatchObject({
      status: 503,
    });
    expect(await ours()).toEqual(before);
  });
});
