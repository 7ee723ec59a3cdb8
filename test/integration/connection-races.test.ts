/**
 * Races that used to leave traces, each run as two requests side by side with the interleaving
 * forced by a lock the test holds in the metadata database (no sleeps): a connect that commits
 * after its database's deletion, a connect committed between a deletion's read and its write,
 * and a service created while the project's first site is being created. Real Worker, real
 * metadata database and cluster.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import { createDatabase, createSite, metadata, type Seeded, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { superuser } from '../helpers/pg-login';

let su: pg.Client;
beforeAll(async () => {
  su = await superuser();
});
afterAll(() => su?.end());

/** A metadata session holding a transaction open, for the lock a test takes. */
async function holder(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: inject('metadataUrl') });
  await client.connect();
  await client.query('BEGIN');
  return client;
}

/** Whether a statement of another session on the metadata database waits on a lock and reads like `pattern`. */
async function waiting(pattern: string): Promise<boolean> {
  const rows = await metadata<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and query ilike $1 and pid <> pg_backend_pid()`,
    [pattern],
  );
  return (rows[0]?.n ?? 0) > 0;
}

const connectionsOf = (resourceId: string) =>
  metadata<{ site_id: string }>('select site_id from connections where resource_id = $1', [resourceId]);

async function physicalOf(id: string): Promise<string> {
  const [row] = await metadata<{ p: string }>('select physical_name as p from databases where id = $1', [id]);
  return row?.p as string;
}

describe('a connect beside its database deletion', () => {
  let p: Seeded;
  const base = () => `/api/v1/projects/${p.project.id}`;
  beforeAll(async () => {
    p = await seed(api().baseUrl, 2);
  });

  it('a connect that commits after the deletion is refused 404: no hidden connection row, no c_ role left', async () => {
    const db = await createDatabase(p.as, p.project.id);
    const physical = await physicalOf(db.id);
    const site = p.sites[1]?.id as string;
    // The connect's write waits on its site's row, which the test holds.
    const lock = await holder();
    await lock.query('select id from sites where id = $1 for update', [site]);
    const connect = p.as.post(`${base()}/sites/${site}/connections`, {
      kind: 'database',
      resource_id: db.id,
    });
    // Its own role is made on the cluster before its write: a member of the database's <db>_rw.
    const [role] = await eventually(
      async () =>
        (
          await su.query<{ name: string }>(
            `select r.rolname as name from pg_roles r join pg_auth_members m on m.member = r.oid
               join pg_roles g on g.oid = m.roleid where g.rolname = $1 and r.rolname like 'c\\_%'`,
            [`${physical}_rw`],
          )
        ).rows,
      (rows) => rows.length > 0,
    );
    const deleted = await p.as.delete(`${base()}/databases/${db.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    await lock.query('ROLLBACK');
    await lock.end();
    const res = await connect;
    expect(res.status, res.text).toBe(404);
    expect(await connectionsOf(db.id)).toEqual([]);
    await eventually(
      async () => (await su.query('select 1 from pg_roles where rolname = $1', [role?.name])).rowCount,
      (n) => n === 0,
      20_000,
      `role ${role?.name} dropped`,
    );
  });

  it('a connection committed between the deletion read and its write is removed with the database', async () => {
    const db = await createDatabase(p.as, p.project.id);
    const [holding, other] = [p.sites[0]?.id as string, p.sites[1]?.id as string];
    expect(
      (await p.as.post(`${base()}/sites/${holding}/connections`, { kind: 'database', resource_id: db.id }))
        .status,
    ).toBe(201);
    // The deletion's write waits on the holding site's row; meanwhile a connection of a site it
    // did not read as a holder commits (written as a connect's batch writes it).
    const lock = await holder();
    await lock.query('select id from sites where id = $1 for update', [holding]);
    const deletion = p.as.delete(`${base()}/databases/${db.id}`);
    await eventually(
      () => waiting('%update sites%'),
      (w) => w,
    );
    await metadata(
      `insert into connections (id, project_id, site_id, kind, resource_id, level, credential_mode, holds_plain)
       values (gen_random_uuid(), $1, $2, 'database', $3, 'connect', 'shared', true)`,
      [p.project.id, other, db.id],
    );
    await lock.query('ROLLBACK');
    await lock.end();
    const res = await deletion;
    expect(res.status, res.text).toBe(200);
    expect(await connectionsOf(db.id)).toEqual([]);
  });
});

describe('a service created while the project gets its first site', () => {
  it('is connected to that site when the site is the only one by the time the service is written', async () => {
    const p = await seed(api().baseUrl, 0);
    const name = `race${Date.now().toString(36)}`;
    // The service's row insert waits on a row of the same name the test holds uncommitted.
    const lock = await holder();
    await lock.query(
      `insert into databases (id, project_id, name, engine, replica_set, physical_name, main_user, main_password_ciphertext)
       values (gen_random_uuid(), $1, $2, 'postgresql', false, $3, 'u_x', 'x')`,
      [p.project.id, name, `held_${name}`],
    );
    const creation = p.as.post<{ id: string }>(`/api/v1/projects/${p.project.id}/databases`, {
      name,
      engine: 'postgresql',
    });
    await eventually(
      () => waiting('%insert into "databases"%'),
      (w) => w,
    );
    const site = await createSite(p.as, p.project.id);
    await lock.query('ROLLBACK');
    await lock.end();
    const res = await creation;
    expect(res.status, res.text).toBe(201);
    expect((await connectionsOf(res.body.id)).map((c) => c.site_id)).toEqual([site.id]);
  });
});
