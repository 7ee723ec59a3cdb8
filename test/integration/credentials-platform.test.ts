import { AwsClient } from 'aws4fetch';
import { describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  connectionsPath,
  createAuthApp,
  createBucket,
  effectiveVars,
  metadata,
  projectPath,
  type Seeded,
  seed,
} from '../helpers/connections';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';

const world = connectionsWorldForFile();
const s = seededForFile(3, () => world.worker.baseUrl);
const site = (p: Seeded, i: number) => p.sites[i]?.id as string;

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

describe('bucket keys through the routes', () => {
  it('read may GET and LIST only; read-write may also PUT and DELETE; neither may delete the bucket', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    expect(
      (await s.as.post(connectionsPath(s, site(s, 0)), { kind: 'bucket', resource_id: bucket.id })).status,
    ).toBe(201);
    expect(
      (
        await s.as.post(connectionsPath(s, site(s, 1)), {
          kind: 'bucket',
          resource_id: bucket.id,
          level: 'read',
        })
      ).status,
    ).toBe(201);
    const rw = await effectiveVars(s, site(s, 0));
    const ro = await effectiveVars(s, site(s, 1));
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

  it('an immediate rotate gives the bucket connection a new key: the old one stops working', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    await s.as.post(connectionsPath(s, site(s, 2)), { kind: 'bucket', resource_id: bucket.id });
    const before = await effectiveVars(s, site(s, 2));
    const res = await s.as.post(
      `${connectionsPath(s, site(s, 2))}/bucket/${bucket.id}/rotate?immediate=true`,
    );
    expect(res.status).toBe(204);
    const after = await effectiveVars(s, site(s, 2));
    expect(after.STORAGE_SECRET_KEY).not.toBe(before.STORAGE_SECRET_KEY);
    expect(await s3(before, 'GET', '?list-type=2')).toBe(403);
    expect(await s3(after, 'GET', '?list-type=2')).toBe(200);
  });
});

describe('managed platform key', () => {
  it('follows the connections: minted, scoped to its capabilities, refused on connection routes, revoked', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const app = await createAuthApp(p.as, p.project.id);
    expect(
      (await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'auth_app', resource_id: app.id })).status,
    ).toBe(201);
    expect((await effectiveVars(p, site(p, 0))).PLATFORM_API_KEY).toBeUndefined();
    const bucket = await createBucket(p.as, p.project.id);
    await p.as.post(connectionsPath(p, site(p, 0)), {
      kind: 'bucket',
      resource_id: bucket.id,
      level: 'read',
    });
    const key = (await effectiveVars(p, site(p, 0))).PLATFORM_API_KEY as string;
    expect(key).toMatch(/^tth_pk_/);
    const asKey = api(world.worker.baseUrl, key);
    expect((await asKey.get(`${projectPath(p)}/buckets`)).status).toBe(200);
    expect((await asKey.get(`${projectPath(p)}/databases`)).status).toBe(403);
    expect((await asKey.get(`${projectPath(p)}/auth-apps/${app.id}/users`)).status).toBe(403);
    expect(
      (await asKey.post(connectionsPath(p, site(p, 0)), { kind: 'bucket', resource_id: bucket.id })).status,
    ).toBe(403);
    expect((await asKey.get(connectionsPath(p, site(p, 0)))).status).toBe(403);
    // Raising the auth app to admin narrows auth to exactly that app; the key value stays.
    await p.as.post(connectionsPath(p, site(p, 0)), {
      kind: 'auth_app',
      resource_id: app.id,
      level: 'admin',
    });
    expect((await effectiveVars(p, site(p, 0))).PLATFORM_API_KEY).toBe(key);
    expect((await asKey.get(`${projectPath(p)}/auth-apps/${app.id}/users`)).status).toBe(200);
    await p.as.delete(`${connectionsPath(p, site(p, 0))}/bucket/${bucket.id}`);
    expect((await asKey.get(`${projectPath(p)}/buckets`)).status).toBe(403);
    await p.as.post(connectionsPath(p, site(p, 0)), {
      kind: 'auth_app',
      resource_id: app.id,
      level: 'client',
    });
    expect((await effectiveVars(p, site(p, 0))).PLATFORM_API_KEY).toBeUndefined();
    expect((await asKey.get(`${projectPath(p)}/buckets`)).status).toBe(401);
  });

  it("revoking a site's managed key by hand replaces it: the old one gets 401, the site a new one by live patch", async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const bucket = await createBucket(p.as, p.project.id);
    expect(
      (await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'bucket', resource_id: bucket.id })).status,
    ).toBe(201);
    const old = (await effectiveVars(p, site(p, 0))).PLATFORM_API_KEY as string;
    const keys = await p.as.get<{ api_keys: Array<{ id: string; site_id: string | null }> }>(
      `${projectPath(p)}/api-keys`,
    );
    const managed = keys.body.api_keys.find((k) => k.site_id === site(p, 0));
    expect(managed).toBeDefined();
    const revoke = await p.as.delete(`${projectPath(p)}/api-keys/${managed?.id}`);
    expect([revoke.status, revoke.body]).toEqual([200, { revoked: true }]);
    expect((await api(world.worker.baseUrl, old).get(`${projectPath(p)}/buckets`)).status).toBe(401);
    const next = (await effectiveVars(p, site(p, 0))).PLATFORM_API_KEY as string;
    expect(next).toMatch(/^tth_pk_/);
    expect(next).not.toBe(old);
    expect((await api(world.worker.baseUrl, next).get(`${projectPath(p)}/buckets`)).status).toBe(200);
    const [patch] = await metadata<{ reason: string; set_names: string[] }>(
      `select reason, set_names from deliveries where kind = 'runtime_patch' and target_id = $1
       order by created_at desc limit 1`,
      [site(p, 0)],
    );
    expect(patch).toEqual({ reason: 'key', set_names: ['PLATFORM_API_KEY'] });
    // The old key is gone for good: revoking it again finds nothing.
    expect((await p.as.delete(`${projectPath(p)}/api-keys/${managed?.id}`)).status).toBe(404);
  });
});
