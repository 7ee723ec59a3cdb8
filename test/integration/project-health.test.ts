/**
 * `GET /api/v1/projects/:id/health`: the sites whose live patches failed a try or went dead,
 * and the rotations not yet done, `delivering` until the new secret's patch is live, then
 * `draining` until the old secret is retired (docs/contract.md §14). Read role; project API
 * keys and non-members are refused like a site's deliveries.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount } from '../helpers/api';
import { metadata, type SeededProject, type Service, seedProject } from '../helpers/connections';

let s: SeededProject;
let db: Service;
let health: string;

interface Health {
  deliveries: {
    site_id: string;
    site_slug: string;
    failed: number;
    dead: number;
    last_error: string | null;
  }[];
  rotations: {
    site_id: string;
    kind: string;
    resource_id: string;
    state: string;
    retires_by: string | null;
  }[];
}

const read = async (): Promise<Health> => {
  const res = await s.as.get<Health>(health);
  expect(res.status, res.text).toBe(200);
  return res.body;
};

/** The site's newest live patch (the rotate's, once it has run). */
const newestDelivery = async (): Promise<string> =>
  (
    await metadata<{ id: string }>(
      'select id from deliveries where target_id = $1 order by created_at desc, id desc limit 1',
      [s.site.id],
    )
  )[0]?.id as string;

beforeAll(async () => {
  s = await seedProject(inject('baseUrl'), 1, { databases: 1 });
  db = s.databases[0] as Service;
  health = `/api/v1/projects/${s.project.slug}/health`;
});

describe('a project health', () => {
  it('is empty while nothing fails and nothing rotates', async () => {
    expect(await read()).toEqual({ deliveries: [], rotations: [] });
  });

  it('lists a graceful rotation as delivering, then draining once its patch is live, then no more once retired', async () => {
    const rotated = await s.as.post(
      `/api/v1/projects/${s.project.id}/sites/${s.site.id}/connections/database/${db.id}/rotate`,
    );
    expect(rotated.status, rotated.text).toBe(204);
    const delivering = await read();
    expect(delivering.rotations).toEqual([
      expect.objectContaining({
        site_id: s.site.id,
        site_slug: s.site.slug,
        kind: 'database',
        resource_id: db.id,
        resource_name: db.name,
        state: 'delivering',
      }),
    ]);
    expect(delivering.rotations[0]?.retires_by).toMatch(/^\d{4}-\d\d-\d\dT/);
    // A patch still pending that never failed is no failing delivery.
    expect(delivering.deliveries).toEqual([]);

    await metadata(`update deliveries set status = 'live', live_at = now() where id = $1`, [
      await newestDelivery(),
    ]);
    expect((await read()).rotations.map((r) => r.state)).toEqual(['draining']);

    await metadata('update connection_rotations set retired_at = now() where site_id = $1', [s.site.id]);
    expect((await read()).rotations).toEqual([]);
  });

  it('counts a site’s patches that failed a try and those that went dead, with the newest error', async () => {
    // Rows of their own (no queue message names them, so nothing else moves them): one gave up, a newer one failed a try.
    await metadata(
      `insert into deliveries (id, kind, project_id, target_id, reason, status, attempts, last_error, created_at)
       values (gen_random_uuid(), 'runtime_patch', $1, $2, 'variables', 'dead', 5, 'gave up', now() - interval '1 minute'),
              (gen_random_uuid(), 'runtime_patch', $1, $2, 'variables', 'pending', 2, 'webhook answered 502', now())`,
      [s.project.id, s.site.id],
    );
    expect((await read()).deliveries).toEqual([
      {
        site_id: s.site.id,
        site_slug: s.site.slug,
        failed: 1,
        dead: 1,
        last_error: 'webhook answered 502',
        latest_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    ]);
  });

  it('answers a read member, and refuses a non-member (404) and a project API key (403)', async () => {
    const reader = await createAccount();
    const added = await s.as.put(`/api/v1/projects/${s.project.id}/members/${reader.id}`, { role: 'read' });
    expect(added.status, added.text).toBe(200);
    expect((await api(undefined, reader.token).get(health)).status).toBe(200);
    const stranger = await createAccount();
    expect((await api(undefined, stranger.token).get(health)).status).toBe(404);
    const key = await s.as.post<{ key: string }>(`/api/v1/projects/${s.project.id}/api-keys`, {
      name: 'health-reader',
      capabilities: { storage: true, databases: true },
    });
    expect(key.status, key.text).toBe(201);
    expect((await api(undefined, key.body.key).get(health)).status).toBe(403);
  });
});
