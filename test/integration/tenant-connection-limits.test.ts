/**
 * The shared cluster protects itself from one tenant (docs/deploy.md, "The shared cluster's limits"):
 * every login role and every database Tether makes carries a CONNECTION LIMIT, tenant roles
 * start with idle-in-transaction and temp-file bounds they cannot lift, no tenant login can
 * lift its database's limit (the admin owns the database), and the admin has connections of its own. Pins the bug of one app role opening 397 connections and taking every
 * non-superuser slot, so that other tenants' apps and Tether's own provisioning failed.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import { createDatabase, type Seeded, seed } from '../helpers/connections';
import { loginOf, superuser } from '../helpers/pg-login';
import { appSession, databaseUrlOf } from '../helpers/tenant-attack';

/** The role limit the test stack runs with (the default). */
const ROLE_LIMIT = 20;
const TOO_MANY_CONNECTIONS = '53300';

let greedy: Seeded;
let greedyUrl: string;
const sessions: pg.Client[] = [];
beforeAll(async () => {
  greedy = await seed(api().baseUrl, 1);
  await createDatabase(greedy.as, greedy.project.id);
  greedyUrl = await databaseUrlOf(greedy.as, greedy.project.id, greedy.sites[0]?.id as string);
});
afterAll(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
});

describe('one tenant opening connections until refused', () => {
  it(`gets ${ROLE_LIMIT} and then 53300, while another tenant connects and Tether still provisions`, async () => {
    let refused: string | null = null;
    for (let i = 0; i < ROLE_LIMIT + 5 && refused === null; i++) {
      try {
        sessions.push(await appSession(greedyUrl));
      } catch (err) {
        refused = (err as { code?: string }).code ?? String(err);
      }
    }
    expect(sessions).toHaveLength(ROLE_LIMIT);
    expect(refused).toBe(TOO_MANY_CONNECTIONS);

    const other = await seed(api().baseUrl, 1);
    await createDatabase(other.as, other.project.id);
    const otherApp = await appSession(
      await databaseUrlOf(other.as, other.project.id, other.sites[0]?.id as string),
    );
    sessions.push(otherApp);
    expect((await otherApp.query('select 1 as ok')).rows).toEqual([{ ok: 1 }]);
    // Tether's own work on the greedy tenant's project: a new database with its connection.
    const more = await greedy.as.post(`/api/v1/projects/${greedy.project.id}/databases`, {
      name: `more_${Date.now()}`,
      engine: 'postgresql',
    });
    expect(more.status, more.text).toBe(201);
  });

  it('every role Tether made for the database and the database itself carry limits a tenant cannot lift', async () => {
    const { user, db } = loginOf(greedyUrl);
    const su = await superuser();
    try {
      const roles = await su.query<{ rolname: string; rolconnlimit: number; rolconfig: string[] | null }>(
        `select rolname, rolconnlimit, rolconfig from pg_roles where rolname = any($1) order by rolname`,
        [[user, `r_${db}`]],
      );
      expect(roles.rows).toHaveLength(2);
      for (const role of roles.rows) {
        expect(role.rolconnlimit).toBe(ROLE_LIMIT);
        expect(role.rolconfig).toEqual(
          expect.arrayContaining(['idle_in_transaction_session_timeout=5min', 'temp_file_limit=1GB']),
        );
      }
      const main = await su.query<{ rolconnlimit: number }>(
        `select r.rolconnlimit from pg_roles r join pg_auth_members m on m.member = r.oid
           join pg_roles g on g.oid = m.roleid where g.rolname = $1 and r.rolname like 'u\\_%'`,
        [`${db}_rw`],
      );
      expect(main.rows).toEqual([{ rolconnlimit: ROLE_LIMIT }]);
      const database = await su.query('select datconnlimit from pg_database where datname = $1', [db]);
      expect(database.rows).toEqual([{ datconnlimit: 60 }]);
    } finally {
      await su.end();
    }
    const app = sessions[0] as pg.Client;
    await expect(app.query("set temp_file_limit = '100GB'")).rejects.toMatchObject({ code: '42501' });
  });

  it("a tenant's login cannot lift its database's connection limit, and still creates what its migrations need", async () => {
    // Regression (issue 38): <db>_rw owned the database, so any connect-level login could run
    // ALTER DATABASE … CONNECTION LIMIT -1 and open sessions until other tenants were refused.
    const { db } = loginOf(greedyUrl);
    const app = sessions[0] as pg.Client;
    for (const lift of [
      `ALTER DATABASE "${db}" CONNECTION LIMIT -1`,
      `ALTER DATABASE "${db}" CONNECTION LIMIT 1000`,
      `ALTER DATABASE "${db}" OWNER TO CURRENT_USER`,
      `ALTER DATABASE "${db}" SET statement_timeout = 0`,
    ]) {
      await expect(app.query(lift), lift).rejects.toMatchObject({ code: '42501' });
    }
    const su = await superuser();
    try {
      const database = await su.query(
        `select datconnlimit, pg_get_userbyid(datdba) = 'tether_admin' as admin_owned
           from pg_database where datname = $1`,
        [db],
      );
      expect(database.rows).toEqual([{ datconnlimit: 60, admin_owned: true }]);
    } finally {
      await su.end();
    }
    // What connect-level apps did before still works: tables and schemas, owned by <db>_rw.
    await app.query('create table migrated (id int primary key)');
    await app.query('create schema app_schema');
    await app.query('create table app_schema.more (id int)');
    await app.query('create temporary table scratch (id int)');
    const owners = await app.query(
      `select pg_get_userbyid(c.relowner) as owner from pg_class c
        where c.relname in ('migrated', 'more') order by c.relname`,
    );
    expect(owners.rows).toEqual([{ owner: `${db}_rw` }, { owner: `${db}_rw` }]);
  });
});
