/**
 * Names shaped like a UUID (docs/contract.md §9, Names). A path segment shaped like a UUID is
 * read as an id, so a write member who named a bucket, a site or a project after another
 * resource's id made that id stand for two things. Regression: every one of these was 201 on
 * main before issue 38; each is now 400 VALIDATION_FAILED naming the field, and nothing is made.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, uniqueName } from '../helpers/api';
import { metadata, type SeededProject, seedProject } from '../helpers/connections';

let p: SeededProject;
const project = () => `/api/v1/projects/${p.project.id}`;

beforeAll(async () => {
  p = await seedProject(inject('baseUrl'), 2, { databases: 1 });
});

type Refusal = { error: { code: string; field?: string; message: string } };

describe('a name shaped like a UUID', () => {
  it("naming a new service, site, principal or project after another resource's id is 400, and nothing is made", async () => {
    const db = p.databases[0] as { id: string };
    // Another resource's id (the attack) and a fresh one, in both cases.
    const taken = (p.sites[0] as { id: string }).id;
    const letterFirst = `a${randomUUID().slice(1)}`;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [`${project()}/databases`, { name: taken, engine: 'postgresql' }, 'name'],
      [`${project()}/buckets`, { name: db.id }, 'name'],
      [`${project()}/auth-apps`, { app_id: randomUUID() }, 'app_id'],
      [`${project()}/sites`, { slug: db.id }, 'slug'],
      [`${project()}/sites`, { slug: letterFirst }, 'slug'],
      [`${project()}/buckets`, { name: letterFirst }, 'name'],
      [`${project()}/databases/${db.id}/principals`, { name: taken, level: 'connect' }, 'name'],
      ['/api/v1/projects', { name: 'x', slug: taken }, 'slug'],
    ];
    for (const [path, body, field] of cases) {
      const res = await p.as.post<Refusal>(path, body);
      expect([path, res.status, res.body.error?.code, res.body.error?.field]).toEqual([
        path,
        400,
        'VALIDATION_FAILED',
        field,
      ]);
      // A UUID starting with a digit already breaks the name rule; any other one is named as a UUID.
      expect(res.body.error.message).toMatch(/UUID|starting with a letter/);
    }
    const [made] = await metadata<{ n: number }>(
      `select (select count(*) from sites where project_id = $1)::int
            + (select count(*) from buckets where project_id = $1)::int
            + (select count(*) from auth_apps where project_id = $1)::int
            + (select count(*) from principals where resource_id = $2)::int
            + (select count(*) from projects where slug = $3)::int as n`,
      [p.project.id, db.id, taken],
    );
    expect(made?.n).toBe(2);
  });

  it('a project named like a UUID gets a slug that is not one', async () => {
    const res = await p.as.post<{ slug: string }>('/api/v1/projects', { name: randomUUID() });
    expect(res.status).toBe(201);
    expect(res.body.slug).not.toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('names that only look a little like ids are still taken', async () => {
    const site = await p.as.post(`${project()}/sites`, { slug: `a${randomUUID().slice(1, 35)}` });
    expect(site.status).toBe(201);
    expect(
      (
        await api()
          .as(p.token)
          .post(`${project()}/buckets`, { name: uniqueName('b') })
      ).status,
    ).toBe(201);
  });
});
