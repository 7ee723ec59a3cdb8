/**
 * GET /api/v1/projects/:id/sites/:siteId/tunnel/:dbId, the WebSocket byte tunnel behind
 * `tether connect --local`: who may open it, to which databases, and what the Worker lets
 * through to the cluster.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { type ApiClient, api, createAccount } from '../helpers/api';
import { createDatabase, createSite, type Service, seed, seedProject } from '../helpers/connections';

let as: ApiClient;
let token: string;
let projectId: string;
let site: { id: string; slug: string };
let first: Service;

const upper = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
const tunnelPath = (siteId: string, dbId: string) =>
  `/api/v1/projects/${projectId}/sites/${siteId}/tunnel/${dbId}`;

beforeAll(async () => {
  // One site: the new database is connected to it at the default level.
  const world = await seedProject(inject('baseUrl'), 1, { databases: 1 });
  ({ as, token, site } = world);
  projectId = world.project.id;
  first = world.databases[0] as Service;
});

describe('GET /api/v1/projects/:id/sites/:siteId/tunnel/:dbId', () => {
  it('is in the OpenAPI document', async () => {
    const doc = await api().get<{ paths: Record<string, Record<string, unknown>> }>('/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths['/api/v1/projects/{id}/sites/{siteId}/tunnel/{dbId}'] ?? {})).toEqual([
      'get',
    ]);
  });

  it('answers 426 without a WebSocket upgrade', async () => {
    const res = await as.get(tunnelPath(site.id, first.id));
    expect(res.status).toBe(426);
    expect(res.body).toMatchObject({ error: { code: 'UPGRADE_REQUIRED' } });
  });

  it('answers 401 without credentials and 403 below the write role', async () => {
    expect((await api().get(tunnelPath(site.id, first.id))).status).toBe(401);
    const reader = await createAccount();
    await as.put(`/api/v1/projects/${projectId}/members/${reader.id}`, { role: 'read' });
    expect((await api(inject('baseUrl'), reader.token).get(tunnelPath(site.id, first.id))).status).toBe(403);
  });

  it('answers 404 for a database the site is not connected to, and for one of another project', async () => {
    const other = await createSite(as, projectId);
    const res = await as.get(tunnelPath(other.id, first.id));
    expect(res.status).toBe(404);
    const stranger = await seed(inject('baseUrl'), 1);
    const foreign = await createDatabase(stranger.as, stranger.project.id);
    expect((await as.get(tunnelPath(site.id, foreign.id))).status).toBe(404);
    expect((await as.get(tunnelPath(site.id, 'not-a-uuid'))).status).toBe(404);
  });

  it('answers 400 for a MongoDB database', async () => {
    const mongo = await createDatabase(as, projectId, 'mongodb');
    const connected = await as.post(`/api/v1/projects/${projectId}/sites/${site.id}/connections`, {
      kind: 'database',
      resource_id: mongo.id,
    });
    expect(connected.status).toBe(201);
    const res = await as.get(tunnelPath(site.id, mongo.id));
    expect(res.status).toBe(400);
  });

  it('declines an SSLRequest with N, then carries the start-up to the cluster', async () => {
    const url = `${inject('baseUrl').replace(/^http/, 'ws')}${tunnelPath(site.id, first.id)}`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    const next = () =>
      new Promise<Buffer>((resolve, reject) => {
        ws.once('message', (data: Buffer) => resolve(data));
        ws.once('close', (code) => reject(new Error(`closed ${code}`)));
      });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    try {
      const ssl = Buffer.alloc(8);
      ssl.writeInt32BE(8, 0);
      ssl.writeInt32BE(80877103, 4);
      const declined = next();
      ws.send(ssl);
      expect((await declined).toString()).toBe('N');
      const remote = new URL(
        (
          await as.get<{ vars: Record<string, string> }>(
            `/api/v1/projects/${projectId}/sites/${site.id}/env/effective`,
          )
        ).body.vars[`DATABASE_URL_${upper(first.name)}`] as string,
      );
      const params = `user\0${decodeURIComponent(remote.username)}\0database\0${remote.pathname.slice(1)}\0\0`;
      const startup = Buffer.alloc(8 + Buffer.byteLength(params));
      startup.writeInt32BE(startup.length, 0);
      startup.writeInt32BE(196608, 4);
      startup.write(params, 8);
      const answer = next();
      ws.send(startup);
      // 'R': the cluster itself asks for authentication.
      expect((await answer).subarray(0, 1).toString()).toBe('R');
    } finally {
      ws.close();
    }
  });

  it('closes with 1008 and a PostgreSQL error when the first bytes are not a start-up packet', async () => {
    const url = `${inject('baseUrl').replace(/^http/, 'ws')}${tunnelPath(site.id, first.id)}`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    const frames: Buffer[] = [];
    ws.on('message', (data: Buffer) => frames.push(data));
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    expect(await closed).toBe(1008);
    expect(frames[0]?.subarray(0, 1).toString()).toBe('E');
  });
});
