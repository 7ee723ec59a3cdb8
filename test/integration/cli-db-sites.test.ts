/**
 * `tether db sites <db> [--add <site>]` through the older per-service route
 * GET/PUT /api/v1/databases/:id/sites, as a subprocess against the local stack.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiClient } from '../helpers/api';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { type Service, seedProject } from '../helpers/connections';

let as: ApiClient;
let projectId: string;
let web: { id: string; slug: string };
let admin: { id: string; slug: string };
let db: Service;
const h = cliHomeForFile();

async function levelOf(siteId: string): Promise<string | undefined> {
  const res = await as.get<{ connections: Array<{ resource_id: string; level: string }> }>(
    `/api/v1/projects/${projectId}/sites/${siteId}/connections`,
  );
  expect(res.status).toBe(200);
  return res.body.connections.find((c) => c.resource_id === db.id)?.level;
}

beforeAll(async () => {
  // Two sites: the new database starts connected to nothing; connect web at read-only.
  const world = await seedProject(inject('baseUrl'), 2, { databases: 1 });
  as = world.as;
  projectId = world.project.id;
  [web, admin] = world.sites as [{ id: string; slug: string }, { id: string; slug: string }];
  db = world.databases[0] as Service;
  const connected = await as.post(`/api/v1/projects/${projectId}/sites/${web.id}/connections`, {
    kind: 'database',
    resource_id: db.id,
    level: 'read-only',
  });
  expect(connected.status).toBe(201);
  signInAs(h, world);
});

describe('tether db sites', () => {
  it('lists the sites of a database', async () => {
    const res = await runCli(h, ['db', 'sites', db.name, '--json']);
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout) as { sites: Array<{ site_id: string; level: string }> };
    expect(body.sites).toEqual([expect.objectContaining({ site_id: web.id, level: 'read-only' })]);
  });

  it('--add connects another site at the default level and keeps the others', async () => {
    const res = await runCli(h, ['db', 'sites', db.name, '--add', admin.slug]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(admin.slug);
    expect(await levelOf(admin.id)).toBe('connect');
    expect(await levelOf(web.id)).toBe('read-only');
  });

  it('--add of a site already there changes nothing', async () => {
    const res = await runCli(h, ['db', 'sites', db.name, '--add', admin.slug]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('already connected');
  });

  it('an unknown database is exit 1', async () => {
    const res = await runCli(h, ['db', 'sites', 'no_such_db']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no database "no_such_db"');
  });

  it('an unknown site for --add is exit 1 and changes nothing', async () => {
    const res = await runCli(h, ['db', 'sites', db.name, '--add', 'nope']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no site "nope"');
  });
});
