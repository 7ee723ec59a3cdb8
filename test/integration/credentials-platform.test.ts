/**
 * Bucket keys and the managed platform key through the HTTP routes, the 503 promise (an
 * unreachable admin side changes nothing at all), and nothing secret at rest.
 */
import { readFile } from 'node:fs/promises';
import { AwsClient } from 'aws4fetch';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api } from '../helpers/api';
import {
  type ConnectionsWorld,
  createAuthApp,
  createBucket,
  createDatabase,
  metadata,
  type Seeded,
  seed,
  startConnectionsWorld,
} from '../helpers/connections';
import { superuser } from '../helpers/pg-login';
import { startExtraWorker } from '../helpers/worker';

let world: ConnectionsWorld;
let s: Seeded;
const base = (p: Seeded) => `/api/v1/projects/${p.project.id}`;
const site = (p: Seeded, i: number) => p.sites[i]?.id as string;
const conns = (p: Seeded, i: number) => `${base(p)}/sites/${site(p, i)}/connections`;

async function effective(p: Seeded, i: number): Promise<Record<string, string>> {
  const res = await p.as.get<{ vars: Record<string, string> }>(
    `${base(p)}/sites/${site(p, i)}/env/effective`,
  );
  expect(res.status).toBe(200);
  return res.body.vars;
}

/** One S3 request with the keys an app is handed; returns the status. */
async function s3(
  vars: Record<string, string>,
  method: string,
  path: string,
  body?: string,
): Promise<number> {
  const client = new AwsClient({
    accessKeyId: vars.STORAGE_ACCESS_KEY as string,
    secretAccessKey: vars.STORAGE_SECRET_KEY as string,
    service: 's3',
    region: vars.STORAGE_REGION as string,
    retries: 0,
  });
  const res = await client.fetch(`${vars.STORAGE_ENDPOINT}/${vars.STORAGE_BUCKET}${path}`, { method, body });
  await res.arrayBuffer();
  return res.status;
}

beforeAll(async () => {
  world = await startConnectionsWorld();
  s = await seed(world.worker.baseUrl, 3);
});
afterAll(async () => {
  await world?.stop();
});

describe('bucket keys through the routes', () => {
  it('read may GET and LIST only; read-write may also PUT and DELETE; neither may delete the bucket', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    expect((await s.as.post(conns(s, 0), { kind: 'bucket', resource_id: bucket.id })).status).toBe(201);
    expect(
      (await s.as.post(conns(s, 1), { kind: 'bucket', resource_id: bucket.id, level: 'read' })).status,
    ).toBe(201);
    const rw = await effective(s, 0);
    const ro = await effective(s, 1);
    expect(rw.STORAGE_ACCESS_KEY).not.toBe(ro.STORAGE_ACCESS_KEY);
    expect(await s3(rw, 'PUT', '/a.txt', 'hello')).toBe(200);
    expect(await s3(ro, 'GET', '/a.txt')).toBe(200);
    expect(await s3(ro, 'GET', '?list-type=2')).toBe(200);
    expect(await s3(ro, 'PUT', '/b.txt', 'no')).toBe(403);
    expect(await s3(ro, 'DELETE', '/a.txt')).toBe(403);
    expect(await s3(rw, 'DELETE', '/a.txt')).toBe(204);
    expect(await s3(rw, 'DELETE', '')).toBe(403);
    expect(await s3(rw, 'PUT', '?policy', '{}')).toBe(403);
  });

  it('rotate gives the bucket connection a new key: the old one stops working', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    await s.as.post(conns(s, 2), { kind: 'bucket', resource_id: bucket.id });
    const before = await effective(s, 2);
    const res = await s.as.post(`${conns(s, 2)}/bucket/${bucket.id}/rotate`);
    expect(res.status).toBe(204);
    const after = await effective(s, 2);
    expect(after.STORAGE_SECRET_KEY).not.toBe(before.STORAGE_SECRET_KEY);
    expect(await s3(before, 'GET', '?list-type=2')).toBe(403);
    expect(await s3(after, 'GET', '?list-type=2')).toBe(200);
  });
});

describe('managed platform key', () => {
  it('follows the connections: minted, scoped to its capabilities, refused on connection routes, revoked', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const app = await createAuthApp(p.as, p.project.id);
    expect((await p.as.post(conns(p, 0), { kind: 'auth_app', resource_id: app.id })).status).toBe(201);
    expect((await effective(p, 0)).PLATFORM_API_KEY).toBeUndefined();
    const bucket = await createBucket(p.as, p.project.id);
    await p.as.post(conns(p, 0), { kind: 'bucket', resource_id: bucket.id, level: 'read' });
    const key = (await effective(p, 0)).PLATFORM_API_KEY as string;
    expect(key).toMatch(/^tth_pk_/);
    const asKey = api(world.worker.baseUrl, key);
    expect((await asKey.get(`${base(p)}/buckets`)).status).toBe(200);
    expect((await asKey.get(`${base(p)}/databases`)).status).toBe(403);
    expect((await asKey.get(`${base(p)}/auth-apps/${app.id}/users`)).status).toBe(403);
    expect((await asKey.post(conns(p, 0), { kind: 'bucket', resource_id: bucket.id })).status).toBe(403);
    expect((await asKey.get(conns(p, 0))).status).toBe(403);
    // Raising the auth app to admin narrows auth to exactly that app; the key value stays.
    await p.as.post(conns(p, 0), { kind: 'auth_app', resource_id: app.id, level: 'admin' });
    expect((await effective(p, 0)).PLATFORM_API_KEY).toBe(key);
    expect((await asKey.get(`${base(p)}/auth-apps/${app.id}/users`)).status).toBe(200);
    await p.as.delete(`${conns(p, 0)}/bucket/${bucket.id}`);
    expect((await asKey.get(`${base(p)}/buckets`)).status).toBe(403);
    await p.as.post(conns(p, 0), { kind: 'auth_app', resource_id: app.id, level: 'client' });
    expect((await effective(p, 0)).PLATFORM_API_KEY).toBeUndefined();
    expect((await asKey.get(`${base(p)}/buckets`)).status).toBe(401);
  });

  it("revoking a site's managed key by hand replaces it: the old one gets 401, the site a new one by live patch", async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const bucket = await createBucket(p.as, p.project.id);
    expect((await p.as.post(conns(p, 0), { kind: 'bucket', resource_id: bucket.id })).status).toBe(201);
    const old = (await effective(p, 0)).PLATFORM_API_KEY as string;
    const keys = await p.as.get<{ api_keys: Array<{ id: string; site_id: string | null }> }>(
      `${base(p)}/api-keys`,
    );
    const managed = keys.body.api_keys.find((k) => k.site_id === site(p, 0));
    expect(managed).toBeDefined();
    const revoke = await p.as.delete(`${base(p)}/api-keys/${managed?.id}`);
    expect([revoke.status, revoke.body]).toEqual([200, { revoked: true }]);
    expect((await api(world.worker.baseUrl, old).get(`${base(p)}/buckets`)).status).toBe(401);
    const next = (await effective(p, 0)).PLATFORM_API_KEY as string;
    expect(next).toMatch(/^tth_pk_/);
    expect(next).not.toBe(old);
    expect((await api(world.worker.baseUrl, next).get(`${base(p)}/buckets`)).status).toBe(200);
    const [patch] = await metadata<{ reason: string; set_names: string[] }>(
      `select reason, set_names from deliveries where kind = 'runtime_patch' and target_id = $1
       order by created_at desc limit 1`,
      [site(p, 0)],
    );
    expect(patch).toEqual({ reason: 'key', set_names: ['PLATFORM_API_KEY'] });
    // The old key is gone for good: revoking it again finds nothing.
    expect((await p.as.delete(`${base(p)}/api-keys/${managed?.id}`)).status).toBe(404);
  });
});

/**
 * What a delivery records. Its sending progress (status, attempts, claims) is left out: the
 * consumers of every Worker on the shared test database move it in the background, and a
 * failed request must not add or change deliveries, not stop others from being sent.
 * Network-policy deliveries are left out too: any Worker's reconciler records and sends them
 * whenever it runs, from the connections as they stand, which the snapshot compares already.
 */
const DELIVERY_RECORD = 'id, kind, project_id, target_id, reason, set_names, unset_names, created_at';
/**
 * What a request records, without what the queue's sending changes later on its own: a delivery's
 * send state and a site's live-patch `seq` counter (taken when a patch is sent, so a patch recorded
 * before the snapshot may be sent while the refused requests run).
 */
const RECORD: Record<string, string> = {
  deliveries: DELIVERY_RECORD,
  sites: "to_jsonb(sites) - 'patch_seq' as site",
};

/** Everything this project owns, in the metadata database, on the cluster and at the stand-ins. */
async function snapshot(p: Seeded, dbIds: string[]) {
  const id = p.project.id;
  const rows = await Promise.all(
    [
      ['connections', 'project_id = $1'],
      ['sites', 'project_id = $1'],
      ['databases', 'project_id = $1'],
      ['buckets', 'project_id = $1'],
      ['api_keys', 'project_id = $1'],
      ['deliveries', "project_id = $1 and kind <> 'network_policy'"],
      [
        'credential_cleanups',
        'resource_id in (select id from databases where project_id = $1 union select id from buckets where project_id = $1)',
      ],
      ['deploys', 'site_id in (select id from sites where project_id = $1)'],
    ].map(([table, where]) =>
      metadata(`select ${RECORD[table as string] ?? '*'} from ${table} where ${where} order by 1`, [id]),
    ),
  );
  const su = await superuser();
  const physical = await metadata<{ p: string }>(
    'select physical_name as p from databases where id = any($1)',
    [dbIds],
  );
  const roles = await su.query(
    `select r.rolname, g.rolname as grp from pg_roles r join pg_auth_members m on m.member = r.oid
       join pg_roles g on g.oid = m.roleid where g.rolname like any($1) order by 1, 2`,
    [physical.map((x) => `${x.p}\\_r_`)],
  );
  await su.end();
  return {
    rows,
    roles: roles.rows,
    aws: world.aws.state(),
    atlas: world.atlas.requests.filter((r) => r.method !== 'GET').length,
  };
}

describe('503: the admin side is unreachable', () => {
  it('POST, PUT, rotate and a level change answer 503 and change nothing; a retry later works', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const pgDb = await createDatabase(p.as, p.project.id);
    const mongo = await createDatabase(p.as, p.project.id, 'mongodb');
    const bucket = await createBucket(p.as, p.project.id);
    await p.as.post(conns(p, 0), { kind: 'database', resource_id: pgDb.id });
    const closed = `127.0.0.1:${await freePort()}`;
    const admin = new URL(inject('adminUrl'));
    admin.host = closed;
    const down = await startExtraWorker({
      CUSTOMER_DB_ADMIN_URL: admin.toString(),
      IAM_ENDPOINT: `http://${closed}`,
      STORAGE_ENDPOINT: `http://${closed}`,
      MONGODB_ADMIN_URL: world.atlas.adminUrl.replace(/127\.0\.0\.1:\d+/, closed),
    });
    try {
      const before = await snapshot(p, [pgDb.id, mongo.id]);
      // Not vacuous: the project's connection, its role and the bucket's key are all in it.
      expect(before.roles.map((r) => r.rolname)).toContain(
        new URL((await effective(p, 0)).DATABASE_URL as string).username,
      );
      expect(before.rows[0]).toHaveLength(1);
      expect(Object.keys(before.aws.users).length).toBeGreaterThan(0);
      const client = api(down.baseUrl, p.token);
      for (const body of [
        { kind: 'database', resource_id: pgDb.id },
        { kind: 'database', resource_id: mongo.id },
        { kind: 'bucket', resource_id: bucket.id },
      ]) {
        expect((await client.post(conns(p, 1), body)).status).toBe(503);
      }
      const put = await client.put(conns(p, 1), {
        connections: [{ kind: 'database', resource_id: pgDb.id }],
      });
      expect(put.status).toBe(503);
      expect((put.body as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await client.post(`${conns(p, 0)}/database/${pgDb.id}/rotate`)).status).toBe(503);
      expect(
        (await client.post(conns(p, 0), { kind: 'database', resource_id: pgDb.id, level: 'read-only' }))
          .status,
      ).toBe(503);
      expect(await snapshot(p, [pgDb.id, mongo.id])).toEqual(before);
      expect((await p.as.post(conns(p, 1), { kind: 'bucket', resource_id: bucket.id })).status).toBe(201);
      expect((await p.as.post(`${conns(p, 0)}/database/${pgDb.id}/rotate`)).status).toBe(204);
    } finally {
      await down.stop();
    }
    // Starts a second Worker: slow when the whole suite shares two cores.
  }, 90_000);
});

/** Hands out one of every kind of secret in a new project: returns them, each checked non-trivial. */
async function handOutSecrets(): Promise<{ p: Seeded; secrets: string[] }> {
  const p = await seed(world.worker.baseUrl, 1);
  await createDatabase(p.as, p.project.id);
  await createDatabase(p.as, p.project.id, 'mongodb');
  await createBucket(p.as, p.project.id);
  const app = await createAuthApp(p.as, p.project.id);
  await p.as.post(conns(p, 0), { kind: 'auth_app', resource_id: app.id, level: 'admin' });
  await p.as.put(`${base(p)}/sites/${site(p, 0)}/env`, {
    vars: { MY_TOKEN: 'user-secret-value-0123456789' },
  });
  const apiKey = await p.as.post<{ key: string }>(`${base(p)}/api-keys`, {
    name: 'ci',
    capabilities: { storage: true },
  });
  const vars = await effective(p, 0);
  const secrets = [
    p.token,
    apiKey.body.key,
    'user-secret-value-0123456789',
    vars.PLATFORM_API_KEY,
    vars.SERVICE_AUTH_SERVER_KEY,
    vars.STORAGE_SECRET_KEY,
    new URL(vars.DATABASE_URL as string).password,
    decodeURIComponent(new URL(vars.MONGODB_URI as string).password),
  ].map(String);
  for (const secret of secrets) expect(secret.length).toBeGreaterThan(15);
  return { p, secrets };
}

describe('nothing secret in plain text at rest', () => {
  it('a dump of every metadata table holds no password, key or token', async () => {
    const { p, secrets } = await handOutSecrets();
    const tables = await metadata<{ t: string }>(
      "select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    expect(tables.length).toBeGreaterThan(10);
    let dump = '';
    for (const { t } of tables) {
      const rows = await metadata<{ j: string }>(`select coalesce(json_agg(x)::text, '') as j from "${t}" x`);
      dump += rows[0]?.j ?? '';
    }
    expect(dump).toContain(p.project.id);
    for (const secret of secrets) expect(dump.includes(secret)).toBe(false);
  });

  // With TETHER_TEST_LOGS=1 the Worker writes to the terminal instead of a file.
  it.skipIf(process.env.TETHER_TEST_LOGS === '1')(
    "the Worker's log holds none of them, its failures included",
    async () => {
      const { p, secrets } = await handOutSecrets();
      // A failure that is logged: rotating through a Worker whose cluster is a closed port.
      const admin = new URL(inject('adminUrl'));
      admin.host = `127.0.0.1:${await freePort()}`;
      const broken = await startExtraWorker({ CUSTOMER_DB_ADMIN_URL: admin.toString() });
      try {
        const dbId = (
          await p.as.get<{ connections: Array<{ kind: string; resource_id: string }> }>(conns(p, 0))
        ).body.connections.find((c) => c.kind === 'database')?.resource_id;
        const rotate = await api(broken.baseUrl, p.token).post(`${conns(p, 0)}/database/${dbId}/rotate`);
        expect(rotate.status).toBe(503);
      } finally {
        await broken.stop();
      }
      const log = [
        await readFile(world.worker.logFile as string, 'utf8'),
        await readFile(broken.logFile as string, 'utf8'),
      ].join('\n');
      expect(log).toContain('failed');
      for (const [i, secret] of secrets.entries())
        expect(log.includes(secret), `secret #${i} in the log`).toBe(false);
    },
    90_000,
  );
});
