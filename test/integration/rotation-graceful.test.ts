/**
 * Graceful rotation (docs/contract.md §14). An app runs with the values it was handed and, between
 * every step of a rotate (the call, the delivery to its webhook through packages/receiver, the
 * reconciler's ticks, the retirement), opens a NEW database connection and makes an S3 request
 * with them: none fails. Once the rotation is `done` the old secret is refused; `?immediate=true`
 * refuses it at once; a pulled .env keeps working for ROTATION_GRACE_SECONDS; a rotation a dead
 * Worker left half-way is finished by the next tick with no login or key left that no connection
 * owns. The Worker runs here (test/helpers/in-process-app.ts) on a clock the test moves, and the
 * test hands it each queue message itself.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwsClient } from 'aws4fetch';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from '../../packages/receiver/index.js';
import { createBucket, createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';
import { roleExists } from '../helpers/pg-login';

let at = new Date();
let app: InProcessApp;
let hook: Server;
const SECRET = 'rotation-webhook-secret-0123456789';
/** What the running app has, by site: its variables, as the receiver applied them. */
const running = new Map<string, Record<string, string>>();

beforeAll(async () => {
  app = await startInProcessApp({ ALLOW_LOOPBACK_TARGETS: 'true' }, undefined, { now: () => at });
  const receiver = createReceiver({
    secret: SECRET,
    now: () => at.getTime(),
    apply: async ({
      set,
      unset,
      siteId,
    }: {
      set: Record<string, string>;
      unset: string[];
      siteId: string;
    }) => {
      const env = { ...(running.get(siteId) ?? {}), ...set };
      for (const name of unset) delete env[name];
      running.set(siteId, env);
    },
  });
  hook = createServer((req, res) => receiver.node(req, res));
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await new Promise<void>((resolve) => hook?.close(() => resolve()));
});

type Rotation = {
  state: string;
  immediate: boolean;
  live_at: string | null;
  retired_at: string | null;
  retires_by: string | null;
  old_sessions: number | null;
};

/** Opens a new connection with `url` and runs one query; true when it worked. */
async function dbWorks(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Lists the bucket with the app's key; true on 200. */
async function s3Works(env: Record<string, string>): Promise<boolean> {
  const client = new AwsClient({
    accessKeyId: env.STORAGE_ACCESS_KEY as string,
    secretAccessKey: env.STORAGE_SECRET_KEY as string,
    service: 's3',
    region: env.STORAGE_REGION as string,
    retries: 0,
  });
  const res = await client.fetch(`${env.STORAGE_ENDPOINT}/${env.STORAGE_BUCKET}?list-type=2`);
  await res.arrayBuffer();
  return res.status === 200;
}

/** A project with one site connected to a PostgreSQL database and a bucket. */
async function world(): Promise<{ s: Seeded; site: string; db: string; bucket: string }> {
  const s = await seed(app.baseUrl, 1);
  const db = await createDatabase(s.as, s.project.id);
  const bucket = await createBucket(s.as, s.project.id);
  const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
  return { s, site, db: db.id, bucket: bucket.id };
}

/** Hands the Worker every message queued since `from` (deliveries, confirmations), in order. */
async function deliverQueued(from: number): Promise<number> {
  let i = from;
  while (i < app.sent.length) {
    const message = app.sent[i++];
    if (message && (message.type === 'deliver' || message.type === 'confirm-live'))
      await app.runQueue([message]);
  }
  return i;
}

const effective = async (s: Seeded, site: string) =>
  (await s.as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
const rotation = async (s: Seeded, path: string) => {
  const res = await s.as.get<Rotation>(`${path}/rotation`);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const userOf = (url: string | undefined) => new URL(url ?? '').username;

describe('graceful rotation', () => {
  it('a webhook app opening new connections through a database and a bucket rotate sees 0 failures; then the old secrets are refused', async () => {
    const w = await world();
    const siteId = w.s.sites[0]?.id as string;
    let queued = app.sent.length;
    const set = await w.s.as.put(`${w.site}/target`, {
      type: 'webhook',
      url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`,
      secret: SECRET,
    });
    expect(set.status, set.text).toBe(200);
    queued = await deliverQueued(queued);
    const failures: string[] = [];
    const attempt = async (step: string) => {
      const env = running.get(siteId) ?? {};
      if (!(await dbWorks(env.DATABASE_URL ?? ''))) failures.push(`${step}: database`);
      if (!(await s3Works(env))) failures.push(`${step}: bucket`);
    };
    await attempt('started');
    const before = { ...(running.get(siteId) ?? {}) };
    const dbPath = `${w.site}/connections/database/${w.db}`;
    const bucketPath = `${w.site}/connections/bucket/${w.bucket}`;
    expect(await rotation(w.s, dbPath)).toMatchObject({ state: 'none' });

    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    await attempt('database rotated');
    expect((await w.s.as.post(`${bucketPath}/rotate`)).status).toBe(204);
    await attempt('bucket rotated');
    expect(await rotation(w.s, dbPath)).toMatchObject({ state: 'delivering', immediate: false });
    // Both secrets work now: the old one until the new one is live where the app runs.
    expect(await dbWorks(before.DATABASE_URL ?? '')).toBe(true);
    expect(await dbWorks((await effective(w.s, w.site)).DATABASE_URL ?? '')).toBe(true);
    // A second graceful rotate while the first still retires is 409 naming the old credential.
    const again = await w.s.as.post<{ error: { message: string } }>(`${bucketPath}/rotate`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(before.STORAGE_ACCESS_KEY);

    queued = await deliverQueued(queued);
    await attempt('delivered');
    await app.runScheduled();
    await attempt('tick 1');
    await app.runScheduled();
    await attempt('tick 2');
    expect(failures).toEqual([]);

    const db = await rotation(w.s, dbPath);
    expect(db.state).toBe('done');
    expect(db.live_at).not.toBeNull();
    expect(db.retired_at).not.toBeNull();
    expect((await rotation(w.s, bucketPath)).state).toBe('done');
    const now = running.get(siteId) ?? {};
    expect(userOf(now.DATABASE_URL)).toMatch(/^c_[a-z0-9]{8}$/);
    expect(userOf(now.DATABASE_URL)).not.toBe(userOf(before.DATABASE_URL));
    expect(await dbWorks(before.DATABASE_URL ?? '')).toBe(false);
    expect(await s3Works(before)).toBe(false);
    expect(await roleExists(userOf(before.DATABASE_URL))).toBe(false);
    const events = await metadata<{ action: string }>(
      `select action from activity_events where project_id = $1 and action like 'credential.%' order by seq`,
      [w.s.project.id],
    );
    expect(events.map((e) => e.action)).toEqual([
      'credential.rotate',
      'credential.rotate',
      'credential.retire',
      'credential.retire',
    ]);
  });

  it('a pulled .env keeps working for the grace period; an immediate rotate refuses the old secret at once', async () => {
    const w = await world();
    const pulled = await effective(w.s, w.site);
    const dbPath = `${w.site}/connections/database/${w.db}`;
    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    const r = await rotation(w.s, dbPath);
    expect(r.state).toBe('delivering');
    const deadline = new Date(r.retires_by ?? '');
    // No target and no RUNTIME_PATCH_URL here: nothing is confirmed live, so the grace decides.
    expect(deadline.getTime() - at.getTime()).toBe(3600_000);
    at = new Date(deadline.getTime() - 1000);
    await app.runScheduled();
    expect(await dbWorks(pulled.DATABASE_URL ?? '')).toBe(true);
    // The app pulls again before the deadline (a redeploy), then the deadline passes.
    const repulled = await effective(w.s, w.site);
    at = new Date(deadline.getTime() + 1000);
    await app.runScheduled();
    expect((await rotation(w.s, dbPath)).state).toBe('done');
    expect(await dbWorks(pulled.DATABASE_URL ?? '')).toBe(false);
    expect(await dbWorks(repulled.DATABASE_URL ?? '')).toBe(true);

    expect((await w.s.as.post(`${dbPath}/rotate?immediate=true`)).status).toBe(204);
    const after = await effective(w.s, w.site);
    expect(userOf(after.DATABASE_URL)).toBe(userOf(repulled.DATABASE_URL));
    expect(await dbWorks(repulled.DATABASE_URL ?? '')).toBe(false);
    expect(await dbWorks(after.DATABASE_URL ?? '')).toBe(true);
    expect(await rotation(w.s, dbPath)).toMatchObject({ state: 'done', immediate: true });
  });

  it('a rotation a dead Worker left draining is finished by the next tick; no login or key is left that no connection owns', async () => {
    const w = await world();
    const before = await effective(w.s, w.site);
    const dbPath = `${w.site}/connections/database/${w.db}`;
    const bucketPath = `${w.site}/connections/bucket/${w.bucket}`;
    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    expect((await w.s.as.post(`${bucketPath}/rotate`)).status).toBe(204);
    // The consumer sent the patch and confirmed it, then died before the rotation moved on.
    await metadata(
      `update deliveries set status = 'live', live_at = now(), delivered_at = now() where target_id = $1 and reason = 'rotate'`,
      [w.s.sites[0]?.id],
    );
    expect((await rotation(w.s, dbPath)).state).toBe('draining');
    await app.runScheduled();
    expect((await rotation(w.s, dbPath)).state).toBe('done');
    expect((await rotation(w.s, bucketPath)).state).toBe('done');
    const after = await effective(w.s, w.site);
    expect(await roleExists(userOf(before.DATABASE_URL))).toBe(false);
    expect(await roleExists(userOf(after.DATABASE_URL))).toBe(true);
    expect(await s3Works(before)).toBe(false);
    expect(await s3Works(after)).toBe(true);
  });

  it('a disconnect while a rotation drains removes both logins at once', async () => {
    const w = await world();
    const before = await effective(w.s, w.site);
    const dbPath = `${w.site}/connections/database/${w.db}`;
    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    const after = await effective(w.s, w.site);
    expect((await w.s.as.delete(dbPath)).status).toBe(200);
    expect(await roleExists(userOf(before.DATABASE_URL))).toBe(false);
    expect(await roleExists(userOf(after.DATABASE_URL))).toBe(false);
  });
});
