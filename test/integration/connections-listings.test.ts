/**
 * The connection listings (a site's connections and what it could connect, the project's
 * connections filtered), and the rule that no connection-route answer carries a secret.
 */
import { describe, expect, inject, it } from 'vitest';
import {
  type Connection as Conn,
  connectionsPath,
  createAuthApp,
  createDatabase,
  effectiveVars,
  connectionListing as list,
  projectPath,
  seed,
} from '../helpers/connections';

describe('listings', () => {
  it('available: what connecting would add; deleted databases and disabled auth apps never appear', async () => {
    const p = await seed(inject('baseUrl'), 2);
    const first = await createDatabase(p.as, p.project.id);
    const second = await createDatabase(p.as, p.project.id);
    const gone = await createDatabase(p.as, p.project.id);
    const off = await createAuthApp(p.as, p.project.id);
    await p.as.delete(`${projectPath(p)}/databases/${gone.id}`);
    expect((await p.as.patch(`${projectPath(p)}/auth-apps/${off.id}`, { enabled: false })).status).toBe(200);
    const before = await list(p);
    expect(before.available.map((a) => a.resource_id)).toEqual([first.id, second.id]);
    expect(before.available[0]).toEqual({
      kind: 'database',
      resource_id: first.id,
      resource_name: first.name,
      levels: ['read-only', 'connect'],
      env_names: ['DATABASE_URL', `DATABASE_URL_${first.name.toUpperCase()}`],
    });
    await p.as.post(connectionsPath(p), { kind: 'database', resource_id: first.id });
    const after = await list(p);
    expect(after.available.map((a) => [a.resource_id, a.env_names])).toEqual([
      [second.id, [`DATABASE_URL_${second.name.toUpperCase()}`]],
    ]);
    expect((await p.as.post(connectionsPath(p), { kind: 'auth_app', resource_id: off.id })).status).toBe(400);
  });

  it('the project listing filters by site_id, kind and resource_id (which apps use a service)', async () => {
    const p = await seed(inject('baseUrl'), 3);
    const db = await createDatabase(p.as, p.project.id);
    const app = await createAuthApp(p.as, p.project.id);
    const [x, y, z] = p.sites;
    await p.as.post(connectionsPath(p, x?.id), { kind: 'database', resource_id: db.id });
    await p.as.post(connectionsPath(p, y?.id), { kind: 'database', resource_id: db.id, level: 'read-only' });
    await p.as.post(connectionsPath(p, z?.id), { kind: 'auth_app', resource_id: app.id });
    const get = async (q: string) =>
      (await p.as.get<{ connections: Conn[] }>(`${projectPath(p)}/connections${q}`)).body.connections;
    expect(await get('')).toHaveLength(3);
    expect(
      (await get(`?kind=database&resource_id=${db.id}`)).map((c) => [c.site_id, c.level]).sort(),
    ).toEqual(
      [
        [x?.id, 'connect'],
        [y?.id, 'read-only'],
      ].sort(),
    );
    expect((await get(`?site_id=${z?.id}`)).map((c) => c.kind)).toEqual(['auth_app']);
    expect(await get('?kind=bucket')).toEqual([]);
    expect((await p.as.get(`${projectPath(p)}/connections?kind=queue`)).status).toBe(400);
    const empty = await seed(inject('baseUrl'), 0);
    expect((await empty.as.get(`${projectPath(empty)}/connections`)).body).toEqual({ connections: [] });
  });
});

it('no connection-route response contains any secret value', async () => {
  const p = await seed(inject('baseUrl'), 2);
  const db = await createDatabase(p.as, p.project.id);
  const app = await createAuthApp(p.as, p.project.id);
  const [one, two] = p.sites;
  const texts: string[] = [];
  const keep = async (r: Promise<{ text: string }>) => texts.push((await r).text);
  await keep(p.as.post(connectionsPath(p, one?.id), { kind: 'database', resource_id: db.id }));
  await keep(
    p.as.post(connectionsPath(p, one?.id), { kind: 'auth_app', resource_id: app.id, level: 'admin' }),
  );
  await keep(
    p.as.put(connectionsPath(p, two?.id), { connections: [{ kind: 'database', resource_id: db.id }] }),
  );
  await keep(p.as.post(`${connectionsPath(p, two?.id)}/database/${db.id}/rotate`));
  await keep(p.as.get(connectionsPath(p, one?.id)));
  await keep(p.as.get(`${projectPath(p)}/connections`));
  await keep(p.as.get(`/api/v1/databases/${db.id}/sites`));
  await keep(
    p.as.put(`/api/v1/databases/${db.id}/sites`, { sites: [{ site_id: one?.id }, { site_id: two?.id }] }),
  );
  const secrets = new Set<string>();
  for (const site of [one, two]) {
    for (const [name, value] of Object.entries(await effectiveVars(p, site?.id))) {
      if (name.startsWith('DATABASE_URL')) secrets.add(decodeURIComponent(new URL(value).password));
      if (/SERVER_KEY|API_KEY/.test(name)) secrets.add(value);
    }
  }
  expect(secrets.size).toBeGreaterThanOrEqual(4);
  await keep(p.as.delete(`${connectionsPath(p, one?.id)}/database/${db.id}`));
  for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
});
