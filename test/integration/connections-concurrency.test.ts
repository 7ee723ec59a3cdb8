/**
 * Concurrent changes to one site: they serialise, each succeeds (409 is for rotate of a shared
 * credential only), nobody sees a 500, and no credential is left behind by a request that lost a race.
 */
import { expect, inject, it } from 'vitest';
import {
  createAuthApp,
  createBucket,
  createDatabase,
  createSite,
  deliveriesOf,
  metadata,
  seed,
} from '../helpers/connections';
import { seededForFile } from '../helpers/for-file';
import { superuser } from '../helpers/pg-login';

const s = seededForFile(2);
const path = (site: string) => `/api/v1/projects/${s.project.id}/sites/${site}/connections`;

/** Login roles that are members of the database's shared owner or reader group. */
async function loginRolesOf(databaseId: string): Promise<string[]> {
  const [row] = await metadata<{ physical_name: string }>(
    'select physical_name from databases where id = $1',
    [databaseId],
  );
  const client = await superuser();
  try {
    const res = await client.query<{ name: string }>(
      `select m.rolname::text as name from pg_auth_members a
       join pg_roles g on g.oid = a.roleid join pg_roles m on m.oid = a.member
       where g.rolname in ($1, $2) and m.rolname like 'c\\_%'`,
      [`${row?.physical_name}_rw`, `${row?.physical_name}_ro`],
    );
    return res.rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

it('six parallel POSTs of one connection: all 201, one connection, one role, one patch', async () => {
  const site = await createSite(s.as, s.project.id);
  const db = await createDatabase(s.as, s.project.id);
  const results = await Promise.all(
    Array.from({ length: 6 }, () =>
      s.as.post<{ created_at: string }>(path(site.id), { kind: 'database', resource_id: db.id }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
  expect(new Set(results.map((r) => r.body.created_at)).size).toBe(1);
  const rows = await metadata<{ credential_name: string }>(
    'select credential_name from connections where site_id = $1 and resource_id = $2',
    [site.id, db.id],
  );
  expect(rows).toHaveLength(1);
  expect(await loginRolesOf(db.id)).toEqual([rows[0]?.credential_name]);
  expect(await deliveriesOf(site.id)).toHaveLength(1);
});

it('twelve parallel POSTs of different services to one site: all 201, twelve connections, each database with its own role', async () => {
  const site = await createSite(s.as, s.project.id);
  const services = [];
  for (let i = 0; i < 4; i++) {
    services.push({ kind: 'database', ...(await createDatabase(s.as, s.project.id)) });
    services.push({ kind: 'bucket', ...(await createBucket(s.as, s.project.id)) });
    services.push({ kind: 'auth_app', ...(await createAuthApp(s.as, s.project.id)) });
  }
  const results = await Promise.all(
    services.map((x) =>
      s.as.post<{ resource_id: string }>(path(site.id), { kind: x.kind, resource_id: x.id }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
  expect(results.map((r) => r.body.resource_id)).toEqual(services.map((x) => x.id));
  const final = await s.as.get<{ connections: Array<{ resource_id: string; env_names: string[] }> }>(
    path(site.id),
  );
  expect(final.body.connections.map((c) => c.resource_id).sort()).toEqual(services.map((x) => x.id).sort());
  const names = final.body.connections.flatMap((c) => c.env_names);
  expect(new Set(names).size).toBe(names.length);
  for (const x of services.filter((x) => x.kind === 'database')) {
    expect(await loginRolesOf(x.id)).toHaveLength(1);
  }
  expect(await deliveriesOf(site.id)).toHaveLength(12);
});

it('parallel PUTs of different sets: each answers 200, and the site ends with one of the sets', async () => {
  const site = await createSite(s.as, s.project.id);
  const apps: Array<{ id: string }> = [];
  for (let i = 0; i < 4; i++) apps.push(await createAuthApp(s.as, s.project.id));
  const sets = apps.map((a, i) => [
    { kind: 'auth_app', resource_id: a.id },
    { kind: 'auth_app', resource_id: (apps[(i + 1) % apps.length] as { id: string }).id, level: 'admin' },
  ]);
  const results = await Promise.all(sets.map((set) => s.as.put(path(site.id), { connections: set })));
  expect(results.map((r) => r.status)).toEqual(Array(sets.length).fill(200));
  const final = await s.as.get<{ connections: Array<{ resource_id: string; level: string }> }>(path(site.id));
  const got = final.body.connections.map((c) => `${c.resource_id}:${c.level}`).sort();
  const candidates = sets.map((set) => set.map((x) => `${x.resource_id}:${x.level ?? 'client'}`).sort());
  expect(candidates).toContainEqual(got);
});

it('services created in parallel in a one-site project: all 201, each connected to the site with unique names', async () => {
  const one = await seed(inject('baseUrl'), 1);
  const site = one.sites[0] as { id: string };
  const base = `/api/v1/projects/${one.project.id}`;
  const unique = (p: string) => `${p}${Math.random().toString(36).slice(2, 10)}`;
  const requests = [
    ...Array.from({ length: 3 }, () =>
      one.as.post<{ id: string }>(`${base}/databases`, { name: unique('db_'), engine: 'postgresql' }),
    ),
    ...Array.from({ length: 3 }, () =>
      one.as.post<{ id: string }>(`${base}/buckets`, { name: unique('bk-') }),
    ),
    ...Array.from({ length: 3 }, () =>
      one.as.post<{ id: string }>(`${base}/auth-apps`, { app_id: unique('app-') }),
    ),
  ];
  const results = await Promise.all(requests);
  expect(results.map((r) => r.status)).toEqual(Array(9).fill(201));
  const final = await one.as.get<{ connections: Array<{ resource_id: string; env_names: string[] }> }>(
    `${base}/sites/${site.id}/connections`,
  );
  expect(final.body.connections.map((c) => c.resource_id).sort()).toEqual(
    results.map((r) => r.body.id).sort(),
  );
  const names = final.body.connections.flatMap((c) => c.env_names);
  expect(new Set(names).size).toBe(names.length);
  expect(await deliveriesOf(site.id)).toHaveLength(9);
});
