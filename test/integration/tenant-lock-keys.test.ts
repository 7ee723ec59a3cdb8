/**
 * No tenant can hold the lock Tether takes before it changes a database's grants and roles.
 * Advisory locks are open to every role, and the key used to be a hash of a string built from
 * the database's name, which every tenant reads in pg_database: a session holding that key made
 * each change of the database wait out its lock timeout and answer 503. The key is now an HMAC
 * under the admin's secret, and the admin's own database, where most changes take the lock, takes
 * no tenant connection.
 */

import { describe, expect, it } from 'vitest';
import { loginAs } from '../helpers/pg-login';
import { postgresPrincipalsForFile } from '../helpers/postgres-principals';

const { world, database, session, principal } = postgresPrincipalsForFile();

/** The key the lock of the session's database used to have, computable by any role. */
const PUBLIC_KEY = `pg_catalog.hashtextextended('tether privileges ' || pg_catalog.current_database(), 0)`;

describe("a tenant taking the lock key it can compute from its database's name", () => {
  it("stalls none of Tether's changes: a read-only principal is still made at once", async () => {
    const db = await database();
    const holder = await principal(db.base, { name: 'lock-holder', level: 'read-only' });
    const tenant = await session(db.physical, holder.username, holder.password);
    // Held for the session, in the database a read-only principal's grants are made in.
    await tenant.query(`select pg_catalog.pg_advisory_lock(${PUBLIC_KEY})`);
    const held = await tenant.query<{ n: number }>(
      `select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted`,
    );
    expect(held.rows[0]?.n).toBe(1);

    const started = Date.now();
    const made = await world.as.post(`${db.base}/principals`, { name: 'after-lock', level: 'read-only' });
    expect(made.status, made.text).toBe(201);
    // The admin's lock timeout is 4 s: a change that waited on the tenant's lock took at least that.
    expect(Date.now() - started).toBeLessThan(4_000);
    const level = await world.as.post(`${db.base}/principals`, { name: 'connect-after', level: 'connect' });
    expect(level.status, level.text).toBe(201);
  });

  it("cannot take it where the admin takes it: the admin's database refuses every tenant login", async () => {
    const db = await database();
    const p = await principal(db.base, { name: 'outsider', level: 'connect' });
    await expect(loginAs('postgres', p.username, p.password)).rejects.toMatchObject({ code: '42501' });
    await expect(loginAs('postgres', db.creds.user, db.creds.password)).rejects.toMatchObject({
      code: '42501',
    });
  });
});
