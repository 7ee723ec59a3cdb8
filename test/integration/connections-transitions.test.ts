/**
 * The connection lifecycle against the specification's States and transitions table (one test
 * per row, initial connections included); listings: connections-listings.test.ts.
 */
import { describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import {
  type Connection as Conn,
  connectionsPath,
  createAuthApp,
  createDatabase,
  createSite,
  deliveriesOf,
  effectiveVars,
  connectionListing as list,
  metadata,
  projectPath,
  seed,
} from '../helpers/connections';
import { seededForFile } from '../helpers/for-file';

const credentialOf = async (siteId: string, resourceId: string) =>
  (
    await metadata<{ credential_mode: string; credential_name: string | null }>(
      'select credential_mode, credential_name from connections where site_id = $1 and resource_id = $2',
      [siteId, resourceId],
    )
  )[0];

/** Two sites, so new services are not connected on creation. */
const s = seededForFile(2);

describe('States and transitions', () => {
  it('no connection -> POST connect: connected, own credential, variables applied, managed key minted', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    const res = await s.as.post<Conn>(connectionsPath(s, site.id), { kind: 'database', resource_id: db.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      site_id: site.id,
      kind: 'database',
      resource_id: db.id,
      level: 'connect',
    });
    const cred = await credentialOf(site.id, db.id);
    expect(cred).toMatchObject({
      credential_mode: 'own',
      credential_name: expect.stringMatching(/^c_[a-z0-9]{8}$/),
    });
    const vars = await effectiveVars(s, site.id);
    expect(vars.DATABASE_URL).toContain(`//${cred?.credential_name}:`);
    expect(vars.PLATFORM_API_KEY).toMatch(/^tth_pk_/);
    const [patch] = await deliveriesOf(site.id);
    expect(patch?.reason).toBe('connect');
    expect(patch?.set_names).toEqual(
      ['DATABASE_URL', `DATABASE_URL_${db.name.toUpperCase()}`, 'PLATFORM_API_KEY'].sort(),
    );
  });

  it('no connection -> PUT replace containing it: connected at the default level', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    const res = await s.as.put<{ connections: Conn[] }>(connectionsPath(s, site.id), {
      connections: [{ kind: 'database', resource_id: db.id }],
    });
    expect(res.status).toBe(200);
    expect(res.body.connections.map((c) => [c.resource_id, c.level])).toEqual([[db.id, 'connect']]);
    expect((await credentialOf(site.id, db.id))?.credential_mode).toBe('own');
  });

  it('connected at level A -> POST with level B: new level; name, password and key stay', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    await s.as.post(connectionsPath(s, site.id), { kind: 'database', resource_id: db.id });
    const before = await effectiveVars(s, site.id);
    const res = await s.as.post<Conn>(connectionsPath(s, site.id), {
      kind: 'database',
      resource_id: db.id,
      level: 'read-only',
    });
    expect(res.status).toBe(201);
    expect(res.body.level).toBe('read-only');
    const after = await effectiveVars(s, site.id);
    expect(after.DATABASE_URL).toBe(before.DATABASE_URL);
    expect(after.PLATFORM_API_KEY).toBe(before.PLATFORM_API_KEY);
    const patches = await deliveriesOf(site.id);
    expect(patches.map((p) => p.reason)).toEqual(['connect', 'level']);
  });

  it('connected -> DELETE: no connection, credential queued for deletion, variables removed, key revoked', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    await s.as.post(connectionsPath(s, site.id), { kind: 'database', resource_id: db.id });
    const name = (await credentialOf(site.id, db.id))?.credential_name;
    const key = (await effectiveVars(s, site.id)).PLATFORM_API_KEY as string;
    expect((await api(undefined, key).get(`${projectPath(s)}/databases`)).status).toBe(200);
    const res = await s.as.delete(`${connectionsPath(s, site.id)}/database/${db.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed: true });
    const cleanups = await metadata(
      'select 1 from credential_cleanups where resource_id = $1 and credential_name = $2',
      [db.id, name],
    );
    expect(cleanups).toHaveLength(1);
    const vars = await effectiveVars(s, site.id);
    expect(vars.DATABASE_URL).toBeUndefined();
    expect(vars.PLATFORM_API_KEY).toBeUndefined();
    expect((await api(undefined, key).get(`${projectPath(s)}/databases`)).status).toBe(401);
    const last = (await deliveriesOf(site.id)).at(-1);
    expect(last?.reason).toBe('disconnect');
    expect(last?.unset_names.sort()).toEqual(
      ['DATABASE_URL', `DATABASE_URL_${db.name.toUpperCase()}`, 'PLATFORM_API_KEY'].sort(),
    );
  });

  it('connected -> PUT replace omitting it: no connection', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    await s.as.post(connectionsPath(s, site.id), { kind: 'database', resource_id: db.id });
    const res = await s.as.put<{ connections: Conn[] }>(connectionsPath(s, site.id), { connections: [] });
    expect(res.body.connections).toEqual([]);
    expect((await list(s, site.id)).connections).toEqual([]);
  });

  // Pins the States and transitions row "no connection | DELETE | | no connection |
  // returns removed false; not an error", for any resource id, one the project has no service for
  // included (the documented 404 list has no such case).
  it('no connection -> DELETE: 200 removed false, not an error (specification row "no connection | DELETE")', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const res = await s.as.delete(`${connectionsPath(s)}/database/${db.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed: false });
    const unknown = await s.as.delete(`${connectionsPath(s)}/bucket/${crypto.randomUUID()}`);
    expect([unknown.status, unknown.body]).toEqual([200, { removed: false }]);
    // A name is not a resource id: one that names no service of the project is 404.
    const unnamed = await s.as.delete(`${connectionsPath(s)}/bucket/no-such-bucket`);
    expect([unnamed.status, (unnamed.body as { error?: { code?: string } }).error?.code]).toEqual([
      404,
      'NOT_FOUND',
    ]);
  });

  it('connected -> PUT replace with the unchanged set: nothing restarts', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    const app = await createAuthApp(s.as, s.project.id);
    const set = [
      { kind: 'database', resource_id: db.id, level: 'read-only' },
      { kind: 'auth_app', resource_id: app.id },
    ];
    const first = await s.as.put<{ connections: Conn[] }>(connectionsPath(s, site.id), { connections: set });
    const vars = await effectiveVars(s, site.id);
    const patches = (await deliveriesOf(site.id)).length;
    const again = await s.as.put<{ connections: Conn[] }>(connectionsPath(s, site.id), {
      connections: [...set].reverse(),
    });
    expect(again.status).toBe(200);
    expect(again.body.connections).toEqual(first.body.connections);
    expect(await effectiveVars(s, site.id)).toEqual(vars);
    expect(await deliveriesOf(site.id)).toHaveLength(patches);
  });

  it('connected (database) -> rotate: a new secret for that connection only', async () => {
    const [a, b] = s.sites;
    const db = await createDatabase(s.as, s.project.id);
    await s.as.post(connectionsPath(s, a?.id), { kind: 'database', resource_id: db.id });
    await s.as.post(connectionsPath(s, b?.id), { kind: 'database', resource_id: db.id });
    const key = `DATABASE_URL_${db.name.toUpperCase()}`;
    const [beforeA, beforeB] = [await effectiveVars(s, a?.id), await effectiveVars(s, b?.id)];
    const listed = await list(s, a?.id);
    const res = await s.as.post(`${connectionsPath(s, a?.id)}/database/${db.id}/rotate`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const [afterA, afterB] = [await effectiveVars(s, a?.id), await effectiveVars(s, b?.id)];
    const user = (u: string | undefined) => new URL(u ?? '').username;
    // Graceful by default (docs/contract.md §14): the new secret may be a second login of the
    // same identity, so the user name may change; both are the connection's own `c_` logins.
    expect(user(afterA[key])).toMatch(/^c_[a-z0-9]{8}$/);
    expect(user(beforeA[key])).toMatch(/^c_[a-z0-9]{8}$/);
    expect(afterA[key]).not.toBe(beforeA[key]);
    expect(afterB[key]).toBe(beforeB[key]);
    expect(await list(s, a?.id)).toEqual(listed);
    expect((await deliveriesOf(a?.id as string)).at(-1)?.reason).toBe('rotate');
  });
});

describe('deleting a service disconnects it everywhere', () => {
  it('a deleted database leaves every site with a disconnect patch, its plain names unset (never moved) and no stale key', async () => {
    const [a, b] = s.sites;
    const first = await createDatabase(s.as, s.project.id);
    const second = await createDatabase(s.as, s.project.id);
    const site = await createSite(s.as, s.project.id);
    await s.as.put(connectionsPath(s, site.id), {
      connections: [
        { kind: 'database', resource_id: first.id },
        { kind: 'database', resource_id: second.id },
      ],
    });
    await s.as.post(connectionsPath(s, a?.id), { kind: 'database', resource_id: first.id });
    const lone = await createSite(s.as, s.project.id);
    await s.as.post(connectionsPath(s, lone.id), { kind: 'database', resource_id: first.id });
    const key = (await effectiveVars(s, lone.id)).PLATFORM_API_KEY as string;
    expect((await s.as.delete(`${projectPath(s)}/databases/${first.id}`)).status).toBe(200);
    const moved = (await deliveriesOf(site.id)).at(-1);
    expect(moved?.reason).toBe('disconnect');
    // contract §9: the plain names never move to another live connection by themselves.
    expect(moved?.set_names).toEqual([]);
    expect(moved?.unset_names).toEqual(['DATABASE_URL', `DATABASE_URL_${first.name.toUpperCase()}`]);
    expect((await list(s, site.id)).connections.map((c) => [c.resource_id, c.env_names])).toEqual([
      [second.id, [`DATABASE_URL_${second.name.toUpperCase()}`]],
    ]);
    expect((await deliveriesOf(lone.id)).at(-1)?.unset_names).toContain('PLATFORM_API_KEY');
    expect((await api(undefined, key).get(`${projectPath(s)}/databases`)).status).toBe(401);
    expect((await list(s, b?.id)).connections.map((c) => c.resource_id)).not.toContain(first.id);
  });
});

describe('Initial connections of new things', () => {
  it('new service in a project with exactly one site: connected to it at the default level', async () => {
    const p = await seed(inject('baseUrl'), 1);
    const db = await createDatabase(p.as, p.project.id);
    const app = await createAuthApp(p.as, p.project.id);
    const got = (await list(p)).connections.map((c) => [c.kind, c.resource_id, c.level]);
    expect(got).toEqual([
      ['database', db.id, 'connect'],
      ['auth_app', app.id, 'client'],
    ]);
    expect((await credentialOf(p.sites[0]?.id as string, db.id))?.credential_mode).toBe('own');
  });
  it('new service in a project with several sites: connected to nothing', async () => {
    await createDatabase(s.as, s.project.id);
    const p = await seed(inject('baseUrl'), 2);
    await createDatabase(p.as, p.project.id);
    expect(
      (await p.as.get<{ connections: Conn[] }>(`${projectPath(p)}/connections`)).body.connections,
    ).toEqual([]);
  });
  it('new site: no connections', async () => {
    const site = await createSite(s.as, s.project.id);
    expect((await list(s, site.id)).connections).toEqual([]);
  });
});
