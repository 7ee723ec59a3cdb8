/**
 * One tenant cannot pin another's roles. Any tenant reads every role name from `pg_roles` and
 * may GRANT on its own objects (and its own database) to another tenant's roles; each grant is
 * a dependency that made DROP ROLE fail. Pins the bugs of a victim's database deletion
 * answering 503 after the database was physically dropped (listed as running ever after), a
 * revoked principal staying listed, and an expired principal never removed.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import { createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { loginOf, roleExists, superuser } from '../helpers/pg-login';
import { postgresPrincipals } from '../helpers/postgres-principals';
import { appSession, databaseUrlOf } from '../helpers/tenant-attack';
import { triggerScheduled } from '../helpers/worker';

let victim: Seeded;
let attacker: Seeded;
let attackerDb: { id: string; name: string };
let attackerApp: pg.Client;
let attackerPhysical: string;
const sessions: pg.Client[] = [];

beforeAll(async () => {
  victim = await seed(api().baseUrl, 1);
  attacker = await seed(api().baseUrl, 1);
  attackerDb = await createDatabase(attacker.as, attacker.project.id);
  const url = await databaseUrlOf(attacker.as, attacker.project.id, attacker.sites[0]?.id as string);
  attackerApp = await appSession(url);
  sessions.push(attackerApp);
  attackerPhysical = new URL(url).pathname.slice(1);
});
afterAll(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
});

const { database, principal } = postgresPrincipals(() => victim, sessions);

/** The attacker grants on a table of its own, and on its own database, to each of `roles`. */
async function pin(roles: string[]): Promise<void> {
  const table = `bait_${Math.random().toString(36).slice(2, 8)}`;
  await attackerApp.query(`create table ${table} (n int)`);
  for (const role of roles) {
    await attackerApp.query(`grant select on ${table} to "${role}"`);
    await attackerApp.query(`alter default privileges grant select on tables to "${role}"`);
  }
  for (const role of roles)
    await attackerApp.query(`grant connect on database "${attackerPhysical}" to "${role}"`);
  const admin = await superuser();
  try {
    const held = await admin.query(
      `select distinct r.rolname from pg_shdepend s join pg_roles r on r.oid = s.refobjid
        where r.rolname = any($1)`,
      [roles],
    );
    expect(held.rows.map((r) => r.rolname).sort()).toEqual([...roles].sort());
  } finally {
    await admin.end();
  }
}

describe("another tenant's grants to a victim's roles", () => {
  it('do not stop a revoke: 200, the role is gone and the principal leaves the listing', async () => {
    const db = await database();
    const p = await principal(db.base, { name: 'pinned', level: 'connect' });
    await pin([p.username]);
    const res = await victim.as.delete(`${db.base}/principals/${p.id}`);
    expect([res.status, res.body]).toEqual([200, { revoked: true }]);
    expect(await roleExists(p.username)).toBe(false);
    const list = await victim.as.get<{ principals: unknown[] }>(`${db.base}/principals`);
    expect(list.body.principals).toEqual([]);
  });

  it('do not stop the reconciler removing an expired principal', async () => {
    const db = await database();
    const p = await principal(db.base, {
      name: 'pinned-temp',
      level: 'read-only',
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    await pin([p.username]);
    const admin = await superuser();
    try {
      await admin.query(
        `alter role "${p.username}" valid until '${new Date(Date.now() - 1000).toISOString()}'`,
      );
    } finally {
      await admin.end();
    }
    await metadata('update principals set expires_at = $2 where id = $1', [
      p.id,
      new Date(Date.now() - 1000).toISOString(),
    ]);
    await triggerScheduled();
    expect(await roleExists(p.username)).toBe(false);
    const list = await victim.as.get<{ principals: unknown[] }>(`${db.base}/principals`);
    expect(list.body.principals).toEqual([]);
  });

  it("do not stop deleting the victim's database, even from a stopped database of the attacker: 200 and every role gone", async () => {
    // A project of its own, so its only site's DATABASE_URL is this database's (initial connection).
    victim = await seed(api().baseUrl, 1);
    const db = await database();
    const p = await principal(db.base, { name: 'with-the-db', level: 'connect' });
    const site = victim.sites[0]?.id as string;
    const appRole = loginOf(await databaseUrlOf(victim.as, victim.project.id, site)).user;
    const roles = [
      p.username,
      appRole,
      db.creds.user,
      `${db.physical}_rw`,
      `${db.physical}_ro`,
      `r_${db.physical}`,
    ];
    await pin(roles);
    // The attacker's database stops: nobody may connect to it, the admin included, until it runs.
    const stop = await attacker.as.post(
      `/api/v1/projects/${attacker.project.id}/databases/${attackerDb.id}/stop`,
    );
    expect(stop.status, stop.text).toBe(200);
    const res = await victim.as.delete(db.base);
    expect([res.status, res.body]).toEqual([200, { deleted: true }]);
    for (const role of roles.filter((r) => r !== appRole))
      expect([role, await roleExists(role)]).toEqual([role, false]);
    // The app's own role goes with its connection's cleanup, which the queue runs.
    await eventually(
      () => roleExists(appRole),
      (exists) => !exists,
      20_000,
      `${appRole} dropped`,
    );
    const listed = await victim.as.get<{ databases: Array<{ id: string }> }>(
      `/api/v1/projects/${victim.project.id}/databases`,
    );
    expect(listed.body.databases.map((d) => d.id)).not.toContain(db.id);
    // The attacker's database is stopped as it was, and what the attacker granted there is gone.
    const admin = await superuser();
    try {
      const row = await admin.query('select datallowconn from pg_database where datname = $1', [
        attackerPhysical,
      ]);
      expect(row.rows).toEqual([{ datallowconn: false }]);
    } finally {
      await admin.end();
    }
  });
});
