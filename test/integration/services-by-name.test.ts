/**
 * Services by name: a path takes a database's or bucket's name, or an auth app's app_id, where
 * it takes the id, as a site's path takes its slug; answers keep the ids. Regression:
 * `…/connections/bucket/assets/rotate` was 404, `resource_id: "main"` said there was no
 * database main although there was, and `DELETE …/connections/database/main` answered 200
 * removed:false and did nothing.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject } from '../helpers/api';
import { connectionsPath, type SeededProject, seedProject } from '../helpers/connections';

let p: SeededProject;
const project = () => `/api/v1/projects/${p.project.slug}`;
const db = () => p.databases[0] as { id: string; name: string };
const bucket = () => p.buckets[0] as { id: string; name: string };
const app = () => p.authApps[0] as { id: string; name: string };
const errorOf = (body: unknown) => (body as { error?: { code?: string; message?: string } }).error;

beforeAll(async () => {
  // One site: every new service is connected to it at once.
  p = await seedProject(inject('baseUrl'), 1, { databases: 1, buckets: 1, authApps: 1 });
});

describe('services by name', () => {
  it('a database, a bucket and an auth app answer by name as by id, with their ids', async () => {
    const byName = await p.as.get(`${project()}/databases/${db().name}/credentials`);
    const byId = await p.as.get(`${project()}/databases/${db().id}/credentials`);
    expect(byName.status, byName.text).toBe(200);
    expect(byName.body).toEqual(byId.body);
    const key = await p.as.get<{ bucket: string }>(`${project()}/buckets/${bucket().name}/credentials`);
    expect(key.status, key.text).toBe(200);
    const patched = await p.as.patch<{ id: string; app_id: string }>(`${project()}/auth-apps/${app().name}`, {
      user_limit: 10,
    });
    expect(patched.status, patched.text).toBe(200);
    expect([patched.body.id, patched.body.app_id]).toEqual([app().id, app().name]);
    const users = await p.as.get(`${project()}/auth-apps/${app().name}/users`);
    expect([users.status, users.body]).toEqual([200, { users: [] }]);
  });

  it('connection paths take names: rotate and promote a bucket by name, disconnect a database by name', async () => {
    const base = connectionsPath(p);
    expect((await p.as.post(`${base}/bucket/${bucket().name}/rotate`)).status).toBe(204);
    const promoted = await p.as.post<{ resource_id: string }>(`${base}/bucket/${bucket().name}/promote`);
    expect([promoted.status, promoted.body.resource_id]).toEqual([200, bucket().id]);
    const removed = await p.as.delete(`${base}/database/${db().name}`);
    expect([removed.status, removed.body]).toEqual([200, { removed: true }]);
    const again = await p.as.delete(`${base}/database/${db().name}`);
    expect([again.status, again.body]).toEqual([200, { removed: false }]);
  });

  it('a connection path naming by name a service the project lacks is 404; an unknown id is no connection', async () => {
    const base = connectionsPath(p);
    const unnamed = await p.as.delete(`${base}/database/no-such-db`);
    expect([unnamed.status, errorOf(unnamed.body)?.code]).toEqual([404, 'NOT_FOUND']);
    expect((await p.as.post(`${base}/bucket/no-such-bucket/rotate`)).status).toBe(404);
    // An id is a resource id: the "no connection -> DELETE" row (docs/connections.md), removed false.
    const unknownId = await p.as.delete(`${base}/database/${crypto.randomUUID()}`);
    expect([unknownId.status, unknownId.body]).toEqual([200, { removed: false }]);
  });

  it("a body's resource_id that is not a UUID is 400 saying so, and nothing changes", async () => {
    const before = await p.as.get(connectionsPath(p));
    const res = await p.as.post(connectionsPath(p), { kind: 'database', resource_id: db().name });
    expect(res.status).toBe(400);
    expect(errorOf(res.body)?.message).toMatch(/resource_id: must be the database's id \(a UUID\)/);
    expect((await p.as.get(connectionsPath(p))).body).toEqual(before.body);
  });

  it("another project's service name is not found, and a non-member learns nothing", async () => {
    const other = await createAccount();
    const theirs = await createProject(other.token);
    const as = api(undefined, other.token);
    expect((await as.get(`/api/v1/projects/${theirs.id}/databases/${db().name}/credentials`)).status).toBe(
      404,
    );
    expect((await as.get(`${project()}/databases/${db().name}/credentials`)).status).toBe(404);
  });
});
