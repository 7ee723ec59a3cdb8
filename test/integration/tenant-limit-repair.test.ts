/**
 * Databases made while their owner group `<db>_rw` owned them (before migration 0029): every
 * connect-level login could `ALTER DATABASE … CONNECTION LIMIT -1` (issue 38). The reconciler
 * hands each such database to the admin and restores its limit; the tenant's `public` schema
 * and tables stay its own. Real Worker, real cluster, a real tenant session.
 */
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, metadata, seed } from '../helpers/connections';
import { connectionsWorldForFile } from '../helpers/for-file';
import { loginOf, superuser } from '../helpers/pg-login';
import { appSession, databaseUrlOf } from '../helpers/tenant-attack';
import { triggerScheduled } from '../helpers/worker';

const world = connectionsWorldForFile();
const sessions: pg.Client[] = [];
afterAll(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
});

/** The database's limit, owner and `public` schema owner as the cluster has them. */
async function layout(db: string) {
  const su = await superuser(db);
  try {
    const res = await su.query<{ limit: number; owner: string; schema_owner: string }>(
      `select d.datconnlimit as limit, pg_get_userbyid(d.datdba) as owner,
              (select pg_get_userbyid(n.nspowner) from pg_namespace n where n.nspname = 'public') as schema_owner
         from pg_database d where d.datname = $1`,
      [db],
    );
    return res.rows[0];
  } finally {
    await su.end();
  }
}

describe('a database its owner group owned', () => {
  it('whose tenant lifted its connection limit is handed to the admin with its limit restored by the next tick; the tenant keeps its tables', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const made = await createDatabase(p.as, p.project.id);
    const url = await databaseUrlOf(p.as, p.project.id, p.sites[0]?.id as string);
    const { db } = loginOf(url);
    // As before migration 0029: the owner group owns the database, and so `public`.
    const su = await superuser(db);
    try {
      await su.query(`ALTER DATABASE "${db}" OWNER TO "${db}_rw"`);
      await su.query('ALTER SCHEMA public OWNER TO pg_database_owner');
    } finally {
      await su.end();
    }
    await metadata('update databases set ownership_pending = true where id = $1', [made.id]);
    // Migration 0029 marks such databases before any tick of the new Worker: an earlier tick of
    // this stack found none marked and closed the step for good, as it would in production.
    await metadata("update reconciler_state set cursor = null where name = 'secure-database-ownership'");

    const app = await appSession(url);
    sessions.push(app);
    await app.query('create table before_repair (id int)');
    // The attack, as it worked then.
    await app.query(`ALTER DATABASE "${db}" CONNECTION LIMIT -1`);
    expect(await layout(db)).toMatchObject({ limit: -1, owner: `${db}_rw` });

    await triggerScheduled(world.worker.baseUrl);

    expect(await layout(db)).toEqual({ limit: 60, owner: 'tether_admin', schema_owner: `${db}_rw` });
    await expect(app.query(`ALTER DATABASE "${db}" CONNECTION LIMIT -1`)).rejects.toMatchObject({
      code: '42501',
    });
    const later = await appSession(url);
    sessions.push(later);
    await later.query('insert into before_repair values (1)');
    await later.query('create table after_repair (id int)');
    await later.query('drop table before_repair');
    const [mark] = await metadata<{ ownership_pending: boolean }>(
      'select ownership_pending from databases where id = $1',
      [made.id],
    );
    expect(mark?.ownership_pending).toBe(false);
  });
});
