/**
 * What PostgreSQL's LISTEN/NOTIFY lets a tenant do, as docs/security.md states it. NOTIFY and
 * LISTEN take no privilege PostgreSQL lets anyone revoke, so a read-only app can notify the
 * channels of its own database; a notification never crosses databases, so no other tenant's
 * listener hears it. The order of the server's one notification queue is the barrier: a marker
 * sent after the other tenant's NOTIFY committed arrives after anything that NOTIFY delivered.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import { type Seeded, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { sqlState } from '../helpers/pg-login';
import { postgresPrincipals } from '../helpers/postgres-principals';

let world: Seeded;
const sessions: pg.Client[] = [];
const { database, session, principal } = postgresPrincipals(() => world, sessions);

beforeAll(async () => {
  world = await seed(api().baseUrl, 1);
});
afterAll(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
});

/** A session of the database's main user listening on `channel`, and the payloads it heard. */
async function listener(db: Awaited<ReturnType<typeof database>>, channel: string) {
  const s = await session(db.physical, db.creds.user, db.creds.password);
  const heard: string[] = [];
  s.on('notification', (n) => heard.push(n.payload ?? ''));
  await s.query(`listen ${channel}`);
  return { s, heard };
}

describe('NOTIFY from a read-only app', () => {
  it("reaches its own database's listeners (PostgreSQL has no grant for it to revoke)", async () => {
    const db = await database();
    const { heard } = await listener(db, 'orders');
    const ro = await principal(db.base, { name: 'notifier', level: 'read-only' });
    const app = await session(db.physical, ro.username, ro.password);
    expect(await sqlState(app, 'create table t (n int)')).toBe('42501');
    await app.query(`notify orders, 'from-read-only'`);
    await eventually(
      async () => heard,
      (h) => h.includes('from-read-only'),
      5_000,
      'the notification',
    );
  });

  it("never reaches another database's listeners on the same channel", async () => {
    const victim = await database();
    const other = await database();
    const { s: victimSession, heard } = await listener(victim, 'orders');
    const ro = await principal(other.base, { name: 'outsider', level: 'read-only' });
    const outsider = await session(other.physical, ro.username, ro.password);
    await outsider.query(`notify orders, 'from-elsewhere'`);
    // Sent after the outsider's NOTIFY committed: heard only after anything that NOTIFY delivered.
    await victimSession.query(`notify orders, 'marker'`);
    await eventually(
      async () => heard,
      (h) => h.includes('marker'),
      5_000,
      'the marker',
    );
    expect(heard).toEqual(['marker']);
  });
});
