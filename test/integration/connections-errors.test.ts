import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, api, createAccount } from '../helpers/api';
import {
  type Connection as Conn,
  connectSite as connect,
  connectionsPath,
  createAuthApp,
  createDatabase,
  createSite,
  deliveriesOf,
  projectPath,
  seed,
} from '../helpers/connections';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';
import { startExtraWorker } from '../helpers/worker';

const world = connectionsWorldForFile();
/** A project with two sites, so new services start unconnected. */
const s = seededForFile(2, () => world.worker.baseUrl);

describe('Errors > Management routes', () => {
  let db: { id: string; name: string };
  beforeAll(async () => {
    db = await createDatabase(s.as, s.project.id);
  });

  it('400: unknown kind', async () => {
    const res = await connect(s, { kind: 'queue', resource_id: db.id });
    expect(res.status).toBe(400);
    expect((await s.as.delete(`${connectionsPath(s)}/queue/${db.id}`)).status).toBe(400);
  });
  it('400: a level the kind does not accept', async () => {
    const res = await connect(s, { kind: 'database', resource_id: db.id, level: 'read-write' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('read-only, connect');
    const put = await s.as.put(connectionsPath(s), {
      connections: [{ kind: 'database', resource_id: db.id, level: 'admin' }],
    });
    expect(put.status).toBe(400);
  });
  it('400: a resource belonging to another project, or to none', async () => {
    const other = await seed(world.worker.baseUrl, 1);
    const foreign = await createDatabase(other.as, other.project.id);
    expect((await connect(s, { kind: 'database', resource_id: foreign.id })).status).toBe(400);
    expect((await connect(s, { kind: 'database', resource_id: crypto.randomUUID() })).status).toBe(400);
    expect((await connect(s, { kind: 'bucket', resource_id: db.id })).status).toBe(400);
  });
  it("403: the caller's project role is too low", async () => {
    const reader = await createAccount(undefined, world.worker.baseUrl);
    const put = await s.as.put(`${projectPath(s)}/members/${reader.id}`, { role: 'read' });
    expect(put.status).toBe(200);
    const as: ApiClient = api(world.worker.baseUrl, reader.token);
    expect((await as.get(connectionsPath(s))).status).toBe(200);
    expect((await as.post(connectionsPath(s), { kind: 'database', resource_id: db.id })).status).toBe(403);
    expect((await as.put(connectionsPath(s), { connections: [] })).status).toBe(403);
    expect((await as.delete(`${connectionsPath(s)}/database/${db.id}`)).status).toBe(403);
    expect((await as.post(`${connectionsPath(s)}/database/${db.id}/rotate`)).status).toBe(403);
    // The role is checked before the body: a malformed one changes nothing about the answer.
    expect((await as.post(connectionsPath(s), { kind: 'queue', resource_id: 'x' })).status).toBe(403);
    expect((await as.put(connectionsPath(s), { connections: 'all' })).status).toBe(403);
    expect((await as.delete(`${connectionsPath(s)}/queue/x`)).status).toBe(403);
  });
  it('403: the caller is a project API key, whatever its capabilities', async () => {
    const key = await s.as.post<{ key: string }>(`${projectPath(s)}/api-keys`, {
      name: 'all',
      capabilities: { storage: true, databases: true },
    });
    const as = api(world.worker.baseUrl, key.body.key);
    expect((await as.get(`${projectPath(s)}/connections`)).status).toBe(403);
    expect((await as.get(connectionsPath(s))).status).toBe(403);
    expect((await as.post(connectionsPath(s), { kind: 'database', resource_id: db.id })).status).toBe(403);
    expect((await as.put(connectionsPath(s), { connections: [] })).status).toBe(403);
    expect((await as.delete(`${connectionsPath(s)}/database/${db.id}`)).status).toBe(403);
  });
  it('404: no such project (or not a member)', async () => {
    const stranger = await createAccount(undefined, world.worker.baseUrl);
    const as = api(world.worker.baseUrl, stranger.token);
    expect((await as.get(connectionsPath(s))).status).toBe(404);
    expect((await s.as.get(`/api/v1/projects/${crypto.randomUUID()}/connections`)).status).toBe(404);
    // Before the body is checked, too.
    expect((await as.post(connectionsPath(s), { kind: 'queue' })).status).toBe(404);
    const nowhere = `/api/v1/projects/${crypto.randomUUID()}/sites/${s.sites[0]?.id}/connections`;
    expect((await s.as.put(nowhere, { connections: 'all' })).status).toBe(404);
    // A reference no project can have (too long for a slug) is no such project too, not a 400.
    const long = 'a'.repeat(300);
    expect((await s.as.get(`/api/v1/projects/${long}/connections`)).status).toBe(404);
    expect((await s.as.get(`/api/v1/projects/${long}/sites/${s.sites[0]?.id}/connections`)).status).toBe(404);
  });
  it('404: :siteId is not a site of the project', async () => {
    const other = await seed(world.worker.baseUrl, 1);
    expect((await s.as.get(connectionsPath(s, other.sites[0]?.id))).status).toBe(404);
    expect((await connect(s, { kind: 'database', resource_id: db.id }, crypto.randomUUID())).status).toBe(
      404,
    );
  });
  it('404: :siteId is not a uuid', async () => {
    expect((await s.as.get(connectionsPath(s, 'not-a-uuid'))).status).toBe(404);
    expect((await s.as.put(connectionsPath(s, 'web'), { connections: [] })).status).toBe(404);
  });
  it('404: on rotate, the service is not connected to that site', async () => {
    const other = await createDatabase(s.as, s.project.id);
    expect((await s.as.post(`${connectionsPath(s)}/database/${other.id}/rotate`)).status).toBe(404);
  });
  it("409: rotate of a connection served by the service's shared credential", async () => {
    const stopped = await createDatabase(s.as, s.project.id);
    expect((await s.as.post(`${projectPath(s)}/databases/${stopped.id}/stop`)).status).toBe(200);
    expect((await connect(s, { kind: 'database', resource_id: stopped.id })).status).toBe(201);
    const res = await s.as.post<{ error: { code: string } }>(
      `${connectionsPath(s)}/database/${stopped.id}/rotate`,
    );
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('SHARED_CREDENTIAL');
  });
  it("503: the site's own credential cannot be prepared; nothing changed and a retry later works", async () => {
    const target = await createDatabase(s.as, s.project.id);
    const site = await createSite(s.as, s.project.id);
    const broken = await startExtraWorker({
      CUSTOMER_DB_ADMIN_URL: 'postgres://nobody:x@127.0.0.1:9/postgres',
    });
    try {
      const as = api(broken.baseUrl, s.token);
      const res = await as.post(connectionsPath(s, site.id), { kind: 'database', resource_id: target.id });
      expect(res.status).toBe(503);
      const put = await as.put(connectionsPath(s, site.id), {
        connections: [{ kind: 'database', resource_id: target.id }],
      });
      expect(put.status).toBe(503);
    } finally {
      await broken.stop();
    }
    const list = await s.as.get<{ connections: Conn[] }>(connectionsPath(s, site.id));
    expect(list.body.connections).toEqual([]);
    expect(await deliveriesOf(site.id)).toEqual([]);
    expect((await connect(s, { kind: 'database', resource_id: target.id }, site.id)).status).toBe(201);
  });
  it('rotate of an auth_app connection is 400 (it has no credential)', async () => {
    const app = await createAuthApp(s.as, s.project.id);
    expect((await connect(s, { kind: 'auth_app', resource_id: app.id })).status).toBe(201);
    expect((await s.as.post(`${connectionsPath(s)}/auth_app/${app.id}/rotate`)).status).toBe(400);
  });
});

describe('POST on an existing connection', () => {
  it('without a level it keeps the level it has (connecting again changes nothing, delivers nothing)', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const site = s.sites[0]?.id as string;
    const first = await connect(s, { kind: 'database', resource_id: db.id, level: 'read-only' });
    expect(first.status).toBe(201);
    const ids = async () => (await deliveriesOf(site)).map((d) => d.id);
    const before = await ids();
    const again = await connect(s, { kind: 'database', resource_id: db.id });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await ids()).toEqual(before);
    // Naming a level still changes it.
    const raised = await connect(s, { kind: 'database', resource_id: db.id, level: 'connect' });
    expect(raised.body.level).toBe('connect');
  });

  it('a disabled auth app: its connection may go down a level, never up (400, nothing changed)', async () => {
    const app = await createAuthApp(s.as, s.project.id);
    expect((await connect(s, { kind: 'auth_app', resource_id: app.id, level: 'admin' })).status).toBe(201);
    const patch = await s.as.patch(`${projectPath(s)}/auth-apps/${app.id}`, { enabled: false });
    expect(patch.status).toBe(200);
    expect((await connect(s, { kind: 'auth_app', resource_id: app.id, level: 'client' })).body.level).toBe(
      'client',
    );
    const up = await connect(s, { kind: 'auth_app', resource_id: app.id, level: 'admin' });
    expect(up.status).toBe(400);
    expect(up.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect(JSON.stringify(up.body)).toContain('disabled');
    const put = await s.as.put(connectionsPath(s), {
      connections: [{ kind: 'auth_app', resource_id: app.id, level: 'admin' }],
    });
    expect(put.status).toBe(400);
    const listed = await s.as.get<{ connections: Conn[] }>(connectionsPath(s));
    expect(listed.body.connections.find((c) => c.resource_id === app.id)?.level).toBe('client');
  });
});
