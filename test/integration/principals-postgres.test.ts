/**
 * A PostgreSQL database's named principals (contract §7), through the API on the shared Worker,
 * with every case logging in to the real cluster: levels, rotate, revoke, expiry, and revocation
 * with the database. What a principal's create refuses and its source allowlist are in
 * principals-postgres-input.test.ts.
 */

import { describe, expect, it } from 'vitest';
import { systemEvents } from '../helpers/activity';
import { metadata } from '../helpers/connections';
import { canLogin, sqlState, superuser } from '../helpers/pg-login';
import { postgresPrincipalsForFile, type Shown } from '../helpers/postgres-principals';
import { triggerScheduled } from '../helpers/worker';

const INSUFFICIENT_PRIVILEGE = '42501';
const hourAhead = () => new Date(Date.now() + 3600_000).toISOString();

const { world, database, session, principal } = postgresPrincipalsForFile();

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
      // Recorded once, as Tether's own removal.
      const project = db.base.slice(0, db.base.indexOf('/databases/'));
      const expired = await systemEvents(world.as, project, 'principal.expire');
      expect(expired.filter((e) => e.target.id === p.id)).toEqual([
        expect.objectContaining({ target: { type: 'principal', id: p.id, name: 'temp' } }),
      ]);
    } finally {
      await admin.end();
    }
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
