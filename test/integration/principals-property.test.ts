/**
 * Property: after any sequence of connect, disconnect, connection rotate, principal
 * create, rotate and revoke, and the database's deletion, all through the real Worker against
 * the real cluster, the cluster's `c_` roles of that database equal exactly the live
 * connections' credentials plus the live principals'. A connection's role comes from the
 * metadata (only the API's model of which sites are connected decides which count); a
 * principal's from the API's own answers. Disconnect drops its role through the queue, so the
 * cluster is polled until it agrees (bounded; the failure prints the sequence and both sets).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { superuser } from '../helpers/pg-login';

type Cmd =
  | { op: 'connect'; site: number; level: 'read-only' | 'connect' }
  | { op: 'disconnect'; site: number }
  | { op: 'rotate-connection'; site: number }
  | { op: 'create'; name: number; level: 'read-only' | 'connect' }
  // Rotate and revoke name the n-th principal made so far in the run (modulo), live or revoked.
  | { op: 'rotate'; nth: number }
  | { op: 'revoke'; nth: number };

const SITES = 2;
const NAMES = ['bi', 'ci', 'partner'];
const levelArb = fc.constantFrom('read-only' as const, 'connect' as const);
const siteArb = fc.integer({ min: 0, max: SITES - 1 });
const nthArb = fc.integer({ min: 0, max: 5 });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('connect' as const), site: siteArb, level: levelArb }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('disconnect' as const), site: siteArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rotate-connection' as const), site: siteArb }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      name: fc.integer({ min: 0, max: NAMES.length - 1 }),
      level: levelArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rotate' as const), nth: nthArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('revoke' as const), nth: nthArb }) },
);

let s: Seeded;
let admin: Awaited<ReturnType<typeof superuser>>;

beforeAll(async () => {
  s = await seed(inject('baseUrl'), SITES);
  admin = await superuser();
});
afterAll(() => admin?.end());

/** The `c_` roles that may log in to `physical` (each holds its own CONNECT grant). */
async function rolesOf(physical: string): Promise<string[]> {
  const res = await admin.query<{ rolname: string }>(
    `select r.rolname from pg_roles r
      where r.rolname like 'c\\_%' and not r.rolsuper
        and exists (select 1 from pg_database d where d.datname = $1)
        and has_database_privilege(r.oid, $1, 'CONNECT')
      order by 1`,
    [physical],
  );
  return res.rows.map((r) => r.rolname);
}

/** Which of `names` still exist on the cluster. */
async function existing(names: string[]): Promise<string[]> {
  const res = await admin.query<{ rolname: string }>(
    'select rolname from pg_roles where rolname = any($1) order by 1',
    [names],
  );
  return res.rows.map((r) => r.rolname);
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

it('property: the cluster holds exactly the live connections and live principals as c_ roles', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(cmdArb, { minLength: 3, maxLength: 6 }), fc.boolean(), async (cmds, drop) => {
      const db = await createDatabase(s.as, s.project.id);
      const base = `/api/v1/projects/${s.project.id}`;
      const dbBase = `${base}/databases/${db.id}`;
      const creds = await s.as.get<{ url: string }>(`${dbBase}/credentials`);
      expect(creds.status, creds.text).toBe(200);
      const physical = new URL(creds.body.url).pathname.slice(1);
      const connected = new Set<string>();
      /** Every principal created in this run, in order. */
      const made: Array<{ name: string; id: string; username: string; live: boolean }> = [];
      const seen = new Set<string>();
      for (const cmd of cmds) {
        if (cmd.op === 'connect' || cmd.op === 'disconnect' || cmd.op === 'rotate-connection') {
          const site = s.sites[cmd.site]?.id as string;
          const conns = `${base}/sites/${site}/connections`;
          if (cmd.op === 'connect') {
            const res = await s.as.post(conns, { kind: 'database', resource_id: db.id, level: cmd.level });
            expect(res.status, res.text).toBe(201);
            connected.add(site);
          } else if (cmd.op === 'disconnect') {
            const res = await s.as.delete(`${conns}/database/${db.id}`);
            expect(res.body).toEqual({ removed: connected.has(site) });
            connected.delete(site);
          } else {
            const res = await s.as.post(`${conns}/database/${db.id}/rotate`);
            expect(res.status, res.text).toBe(connected.has(site) ? 204 : 404);
          }
          continue;
        }
        if (cmd.op === 'create') {
          const name = NAMES[cmd.name] as string;
          const live = made.some((p) => p.name === name && p.live);
          const res = await s.as.post<{ id: string; username: string }>(`${dbBase}/principals`, {
            name,
            level: cmd.level,
          });
          expect(res.status, res.text).toBe(live ? 409 : 201);
          if (res.status === 201) {
            made.push({ name, id: res.body.id, username: res.body.username, live: true });
            seen.add(res.body.username);
          }
          continue;
        }
        const p = made[cmd.nth % Math.max(made.length, 1)];
        if (!p) continue;
        if (cmd.op === 'rotate') {
          const res = await s.as.post<{ username: string }>(`${dbBase}/principals/${p.id}/rotate`);
          expect(res.status, res.text).toBe(p.live ? 200 : 404);
          if (p.live) expect(res.body.username).toBe(p.username);
        } else {
          const res = await s.as.delete(`${dbBase}/principals/${p.id}`);
          expect(res.body).toEqual({ revoked: p.live });
          p.live = false;
        }
      }
      const held = await metadata<{ site_id: string; name: string }>(
        `select site_id, credential_name as name from connections
          where kind = 'database' and resource_id = $1 and credential_name is not null`,
        [db.id],
      );
      expect(sorted(held.map((h) => h.site_id))).toEqual(sorted(connected));
      for (const h of held) seen.add(h.name);
      const want = sorted([...held.map((h) => h.name), ...made.filter((p) => p.live).map((p) => p.username)]);
      const have = await eventually(
        () => rolesOf(physical),
        (roles) => JSON.stringify(roles) === JSON.stringify(want),
        8_000,
        `c_ roles of ${physical} = ${JSON.stringify(want)}`,
      );
      expect(have).toEqual(want);
      if (!drop) return;
      const res = await s.as.delete(dbBase);
      expect(res.status, res.text).toBe(200);
      // Every role this database ever held is gone with it.
      expect(
        await eventually(
          () => existing([...seen]),
          (left) => left.length === 0,
          8_000,
          'no role of the deleted database left',
        ),
      ).toEqual([]);
    }),
    { numRuns: 4, seed: 18, endOnFailure: true },
  );
});
