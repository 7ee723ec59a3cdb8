/**
 * The Access listing of databases, buckets and auth apps (contract §7): every site with its
 * level or null, and the principals or restricted keys, on the shared Worker.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createAccount } from '../helpers/api';
import { createAuthApp, createDatabase, createSite, type Seeded, seed } from '../helpers/connections';

type Listing = {
  sites: Array<{ site_id: string; site_slug: string; level: string | null }>;
  principals?: unknown[];
  api_keys?: Array<{ id: string; name: string; managed: boolean; site_id: string | null }>;
};

let world: Seeded;
beforeAll(async () => {
  world = await seed(api().baseUrl, 2);
});

const path = (segment: string, id: string) => `/api/v1/projects/${world.project.id}/${segment}/${id}/access`;

describe('access listing', () => {
  it('a database lists every site of the project with its level, null when not connected', async () => {
    const { as, project, sites } = world;
    const db = await createDatabase(as, project.id);
    const [a, b] = sites as [{ id: string; slug: string }, { id: string; slug: string }];
    const conn = await as.post(`/api/v1/projects/${project.id}/sites/${a.id}/connections`, {
      kind: 'database',
      resource_id: db.id,
      level: 'read-only',
    });
    expect(conn.status).toBe(201);
    const res = await as.get<Listing>(path('databases', db.id));
    expect(res.status).toBe(200);
    expect(res.body.sites).toEqual(
      expect.arrayContaining([
        { site_id: a.id, site_slug: a.slug, level: 'read-only' },
        { site_id: b.id, site_slug: b.slug, level: null },
      ]),
    );
    expect(res.body.sites).toHaveLength(2);
    expect(res.body.principals).toEqual([]);
  });

  it('an auth app lists the project keys restricted to it, managed site keys marked', async () => {
    const { as, project, sites } = world;
    const app = await createAuthApp(as, project.id);
    const other = await createAuthApp(as, project.id);
    const site = await createSite(as, project.id);
    const mine = await as.post<{ id: string }>(`/api/v1/projects/${project.id}/api-keys`, {
      name: 'ci',
      capabilities: { auth: [app.id] },
    });
    const notMine = await as.post<{ id: string }>(`/api/v1/projects/${project.id}/api-keys`, {
      name: 'other',
      capabilities: { auth: [other.id], storage: true },
    });
    expect([mine.status, notMine.status]).toEqual([201, 201]);
    const conn = await as.post(`/api/v1/projects/${project.id}/sites/${site.id}/connections`, {
      kind: 'auth_app',
      resource_id: app.id,
      level: 'admin',
    });
    expect(conn.status).toBe(201);
    const res = await as.get<Listing>(path('auth-apps', app.id));
    expect(res.status).toBe(200);
    expect(res.body.sites).toHaveLength(sites.length + 1);
    expect(res.body.sites.find((s) => s.site_id === site.id)?.level).toBe('admin');
    const keys = res.body.api_keys ?? [];
    expect(keys.map((k) => k.id)).toContain(mine.body.id);
    expect(keys.map((k) => k.id)).not.toContain(notMine.body.id);
    const managed = keys.filter((k) => k.managed);
    expect(managed).toHaveLength(1);
    expect(managed[0]?.site_id).toBe(site.id);
    expect(keys.find((k) => k.id === mine.body.id)?.managed).toBe(false);
    expect(JSON.stringify(res.body)).not.toMatch(/tk_|"key"/);
  });

  it('needs read on the project: a stranger gets 404, an unknown service 404, a project key 403', async () => {
    const { as, project } = world;
    const db = await createDatabase(as, project.id);
    const stranger = await createAccount();
    expect((await api().as(stranger.token).get(path('databases', db.id))).status).toBe(404);
    expect((await as.get(path('databases', crypto.randomUUID()))).status).toBe(404);
    expect((await as.get(path('databases', 'not-a-uuid'))).status).toBe(404);
    expect((await as.get(path('buckets', db.id))).status).toBe(404);
    const key = await as.post<{ key: string }>(`/api/v1/projects/${project.id}/api-keys`, {
      name: 'k',
      capabilities: { databases: true },
    });
    expect((await api().as(key.body.key).get(path('databases', db.id))).status).toBe(403);
    const reader = await createAccount();
    const grant = await as.put(`/api/v1/projects/${project.id}/members/${reader.id}`, { role: 'read' });
    expect(grant.status).toBe(200);
    expect((await api().as(reader.token).get(path('databases', db.id))).status).toBe(200);
  });
});
