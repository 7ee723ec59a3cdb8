/**
 * Every route that takes a site id in its path takes the site's slug as well; answers keep
 * the id as the canonical form. A slug of another project's site is 404, as its id is.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Seeded, seed } from '../helpers/connections';

let world: Seeded;
let other: Seeded;
let site: { id: string; slug: string };
let base: string;

beforeAll(async () => {
  world = await seed(inject('baseUrl'), 2);
  other = await seed(inject('baseUrl'), 1);
  site = world.sites[0] as { id: string; slug: string };
  base = `/api/v1/projects/${world.project.slug}/sites`;
});

describe('a site named by its slug in the path', () => {
  it('connects, lists and derives variables like its id, answering with the id', async () => {
    const db = await createDatabase(world.as, world.project.id);
    const connect = await world.as.post<{ site_id: string }>(`${base}/${site.slug}/connections`, {
      kind: 'database',
      resource_id: db.id,
    });
    expect(connect.status).toBe(201);
    expect(connect.body.site_id).toBe(site.id);
    const bySlug = await world.as.get(`${base}/${site.slug}/connections`);
    const byId = await world.as.get(`${base}/${site.id}/connections`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body).toEqual(byId.body);
    const effective = await world.as.get<{ vars: Record<string, string> }>(
      `${base}/${site.slug}/env/effective`,
    );
    expect(effective.status).toBe(200);
    expect(effective.body.vars.DATABASE_URL).toMatch(/^postgres:\/\//);
  });

  it('reads and replaces user variables', async () => {
    const put = await world.as.put(`${base}/${site.slug}/env`, { vars: { A: '1' } });
    expect(put.status).toBe(200);
    const byId = await world.as.get<{ vars: Record<string, string> }>(`${base}/${site.id}/env`);
    expect(byId.body.vars).toEqual({ A: '1' });
  });

  it("is 404 for another project's site slug and for text that is no slug, and nothing changes", async () => {
    const foreign = other.sites[0] as { slug: string };
    const res = await world.as.put(`${base}/${foreign.slug}/env`, { vars: { B: '2' } });
    expect(res.status).toBe(404);
    expect((await world.as.get(`${base}/Not_A_Slug/connections`)).status).toBe(404);
    expect((await world.as.delete(`${base}/${foreign.slug}`)).status).toBe(404);
    const theirs = await other.as.get<{ vars: Record<string, string> }>(
      `/api/v1/projects/${other.project.slug}/sites/${foreign.slug}/env`,
    );
    expect(theirs.body.vars).toEqual({});
  });

  it('deletes the site', async () => {
    const second = world.sites[1] as { id: string; slug: string };
    const res = await world.as.delete(`${base}/${second.slug}`);
    expect(res.status).toBe(200);
    const listed = await world.as.get<{ sites: Array<{ id: string }> }>(base);
    expect(listed.body.sites.map((s) => s.id)).toEqual([site.id]);
  });
});
