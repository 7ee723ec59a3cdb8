/**
 * Deploys, rollback and effective variables (contract §5), and the older per-service routes
 * GET/PUT /databases/:id/sites and /storage/:id/sites over the same connections.
 */
import { describe, expect, it } from 'vitest';
import { api, createAccount } from '../helpers/api';
import {
  createBucket,
  createDatabase,
  createSite,
  deliveriesOf,
  type Seeded,
  seed,
} from '../helpers/connections';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';

interface Deploy {
  id: string;
  rollback_of?: string;
  created_at: string;
  env_names: string[];
}
interface ServiceSite {
  site_id: string;
  site_slug: string;
  level: string;
  env_names: string[];
  created_at: string;
}

const world = connectionsWorldForFile();
const s = seededForFile(2, () => world.worker.baseUrl);
const base = (p: Seeded) => `/api/v1/projects/${p.project.id}`;
const site0 = () => s.sites[0]?.id as string;

describe('deploys and rollback', () => {
  it('a deploy is handed the effective variables: user ones plus derived ones, derived winning', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    await s.as.put(`${base(s)}/sites/${site.id}/env`, { vars: { APP_MODE: 'prod', DATABASE_URL: 'mine' } });
    await s.as.post(`${base(s)}/sites/${site.id}/connections`, { kind: 'database', resource_id: db.id });
    const eff = await s.as.get<{ vars: Record<string, string> }>(`${base(s)}/sites/${site.id}/env/effective`);
    expect(eff.body.vars.APP_MODE).toBe('prod');
    expect(eff.body.vars.DATABASE_URL).toMatch(/^postgres:\/\//);
    const res = await s.as.post<Deploy>(`${base(s)}/sites/${site.id}/deploys`, {});
    expect(res.status).toBe(201);
    expect(res.body.env_names).toEqual(Object.keys(eff.body.vars).sort());
    expect(res.body.env_names).toContain('PLATFORM_API_KEY');
  });

  it('a rollback derives afresh: it gets exactly what a new deploy gets, never the old values', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    const first = await s.as.post<Deploy>(`${base(s)}/sites/${site.id}/deploys`, {});
    expect(first.body.env_names).toEqual([]);
    await s.as.post(`${base(s)}/sites/${site.id}/connections`, { kind: 'database', resource_id: db.id });
    const rollback = await s.as.post<Deploy>(`${base(s)}/sites/${site.id}/deploys/${first.body.id}/rollback`);
    expect(rollback.status).toBe(201);
    expect(rollback.body.rollback_of).toBe(first.body.id);
    const fresh = await s.as.post<Deploy>(`${base(s)}/sites/${site.id}/deploys`);
    expect(rollback.body.env_names).toEqual(fresh.body.env_names);
    expect(rollback.body.env_names).toContain('DATABASE_URL');
  });

  it('rollback to a deploy of another site, or to none, is 404', async () => {
    const other = await s.as.post<Deploy>(`${base(s)}/sites/${s.sites[1]?.id}/deploys`, {});
    expect((await s.as.post(`${base(s)}/sites/${site0()}/deploys/${other.body.id}/rollback`)).status).toBe(
      404,
    );
    expect((await s.as.post(`${base(s)}/sites/${site0()}/deploys/nope/rollback`)).status).toBe(404);
  });

  it('effective variables and deploys need the write role; read members get 403', async () => {
    const reader = await createAccount(undefined, world.worker.baseUrl);
    await s.as.put(`${base(s)}/members/${reader.id}`, { role: 'read' });
    const as = api(world.worker.baseUrl, reader.token);
    expect((await as.get(`${base(s)}/sites/${site0()}/env/effective`)).status).toBe(403);
    expect((await as.post(`${base(s)}/sites/${site0()}/deploys`, {})).status).toBe(403);
  });
});

describe('older per-service routes', () => {
  it('GET /databases/:id/sites lists the connected sites; PUT replaces them as the full set', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const [a, b] = s.sites as [{ id: string; slug: string }, { id: string; slug: string }];
    const empty = await s.as.get<{ sites: ServiceSite[] }>(`/api/v1/databases/${db.id}/sites`);
    expect(empty.body).toEqual({ sites: [] });
    const put = await s.as.put<{ sites: ServiceSite[] }>(`/api/v1/databases/${db.id}/sites`, {
      sites: [{ site_id: a.id }, { site_id: b.id, level: 'read-only' }],
    });
    expect(put.status).toBe(200);
    expect(put.body.sites.map((x) => [x.site_id, x.site_slug, x.level]).sort()).toEqual(
      [
        [a.id, a.slug, 'connect'],
        [b.id, b.slug, 'read-only'],
      ].sort(),
    );
    const viaSite = await s.as.get<{
      connections: Array<{ resource_id: string; level: string; env_names: string[] }>;
    }>(`${base(s)}/sites/${b.id}/connections`);
    const conn = viaSite.body.connections.find((c) => c.resource_id === db.id);
    expect(conn?.level).toBe('read-only');
    const got = await s.as.get<{ sites: ServiceSite[] }>(`/api/v1/databases/${db.id}/sites`);
    expect(got.body.sites.find((x) => x.site_id === b.id)?.env_names).toEqual(conn?.env_names);
    const before = (await deliveriesOf(a.id)).length;
    const shrink = await s.as.put<{ sites: ServiceSite[] }>(`/api/v1/databases/${db.id}/sites`, {
      sites: [{ site_id: b.id, level: 'read-only' }],
    });
    expect(shrink.body.sites.map((x) => x.site_id)).toEqual([b.id]);
    expect((await deliveriesOf(a.id)).length).toBe(before + 1);
  });

  it('GET and PUT /storage/:id/sites work on bucket connections', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    const put = await s.as.put<{ sites: ServiceSite[] }>(`/api/v1/storage/${bucket.id}/sites`, {
      sites: [{ site_id: site0(), level: 'read' }],
    });
    expect(put.status).toBe(200);
    expect(put.body.sites[0]?.level).toBe('read');
    const got = await s.as.get<{ sites: ServiceSite[] }>(`/api/v1/storage/${bucket.id}/sites`);
    expect(got.body.sites).toEqual(put.body.sites);
  });

  it('refusals: bad level or foreign site 400, unknown service 404, read role 403, API key 403', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const url = `/api/v1/databases/${db.id}/sites`;
    expect((await s.as.put(url, { sites: [{ site_id: site0(), level: 'read-write' }] })).status).toBe(400);
    const other = await seed(world.worker.baseUrl, 1);
    expect((await s.as.put(url, { sites: [{ site_id: other.sites[0]?.id }] })).status).toBe(400);
    expect((await s.as.get(`/api/v1/databases/${crypto.randomUUID()}/sites`)).status).toBe(404);
    expect((await s.as.get('/api/v1/storage/not-a-uuid/sites')).status).toBe(404);
    expect((await other.as.get(url)).status).toBe(404);
    const reader = await createAccount(undefined, world.worker.baseUrl);
    await s.as.put(`${base(s)}/members/${reader.id}`, { role: 'read' });
    const asReader = api(world.worker.baseUrl, reader.token);
    expect((await asReader.get(url)).status).toBe(200);
    expect((await asReader.put(url, { sites: [] })).status).toBe(403);
    const key = await s.as.post<{ key: string }>(`${base(s)}/api-keys`, {
      name: 'k',
      capabilities: { databases: true },
    });
    expect((await api(world.worker.baseUrl, key.body.key).put(url, { sites: [] })).status).toBe(403);
  });

  it('every connection route is in the OpenAPI document', async () => {
    const doc = await api(world.worker.baseUrl).get<{ paths: Record<string, Record<string, unknown>> }>(
      '/api/v1/openapi.json',
    );
    const paths = doc.body.paths;
    const want: Array<[string, string]> = [
      ['/api/v1/projects/{id}/connections', 'get'],
      ['/api/v1/projects/{id}/sites/{siteId}/connections', 'get'],
      ['/api/v1/projects/{id}/sites/{siteId}/connections', 'put'],
      ['/api/v1/projects/{id}/sites/{siteId}/connections', 'post'],
      ['/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}', 'delete'],
      ['/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotate', 'post'],
      ['/api/v1/databases/{id}/sites', 'get'],
      ['/api/v1/databases/{id}/sites', 'put'],
      ['/api/v1/storage/{id}/sites', 'get'],
      ['/api/v1/storage/{id}/sites', 'put'],
      ['/api/v1/projects/{id}/sites/{siteId}/env/effective', 'get'],
      ['/api/v1/projects/{id}/sites/{siteId}/deploys', 'post'],
      ['/api/v1/projects/{id}/sites/{siteId}/deploys/{deployId}/rollback', 'post'],
    ];
    for (const [p, m] of want) expect(paths[p]?.[m], `${m} ${p}`).toBeDefined();
  });
});
