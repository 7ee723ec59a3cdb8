/**
 * Graceful rotation (docs/contract.md §14). An app runs with the values it was handed and, between
 * every step of a rotate (the call, the delivery to its webhook through packages/receiver, the
 * reconciler's ticks, the retirement), opens a NEW database connection and makes an S3 request
 * with them: none fails. Once the rotation is `done` the old secret is refused; `?immediate=true`
 * refuses it at once; a pulled .env keeps working for ROTATION_GRACE_SECONDS; a rotation a dead
 * Worker left half-way is finished by the next tick with no login or key left that no connection
 * owns. The Worker runs here (test/helpers/rotation-stage.ts) on a clock the test moves, and the
 * test hands it each queue message itself.
 */
import { describe, expect, it } from 'vitest';
import { createBucket, createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { roleExists } from '../helpers/pg-login';
import { postgresWorks, s3Works } from '../helpers/rotation-app';
import { effectiveVars, rotationOf, rotationStageForFile } from '../helpers/rotation-stage';

const stage = rotationStageForFile();

/** A project with one site connected to a PostgreSQL database and a bucket. */
async function world(): Promise<{ s: Seeded; site: string; db: string; bucket: string }> {
  const s = await seed(stage.app.baseUrl, 1);
  const db = await createDatabase(s.as, s.project.id);
  const bucket = await createBucket(s.as, s.project.id);
  const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
  return { s, site, db: db.id, bucket: bucket.id };
}

/** Hands the Worker every message queued since `from` (deliveries, confirmations), in order. */
async function deliverQueued(from: number): Promise<number> {
  let i = from;
  while (i < stage.app.sent.length) {
    const message = stage.app.sent[i++];
    if (message && (message.type === 'deliver' || message.type === 'confirm-live'))
      await stage.app.runQueue([message]);
  }
  return i;
}

const userOf = (url: string | undefined) => new URL(url ?? '').username;

describe('graceful rotation', () => {
  it('a webhook app opening new connections through a database and a bucket rotate sees 0 failures; then the old secrets are refused', async () => {
    const w = await world();
    const siteId = w.s.sites[0]?.id as string;
    let queued = stage.app.sent.length;
    const set = await w.s.as.put(`${w.site}/target`, stage.webhookTarget());
    expect(set.status, set.text).toBe(200);
    queued = await deliverQueued(queued);
    const failures: string[] = [];
    const attempt = async (step: string) => {
      const env = stage.running.get(siteId) ?? {};
      if (!(await postgresWorks(env.DATABASE_URL ?? ''))) failures.push(`${step}: database`);
      if (!(await s3Works(env))) failures.push(`${step}: bucket`);
    };
    await attempt('started');
    const before = { ...(stage.running.get(siteId) ?? {}) };
    const dbPath = `${w.site}/connections/database/${w.db}`;
    const bucketPath = `${w.site}/connections/bucket/${w.bucket}`;
    expect(await rotationOf(w.s, dbPath)).toMatchObject({ state: 'none' });

    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    await attempt('database rotated');
    expect((await w.s.as.post(`${bucketPath}/rotate`)).status).toBe(204);
    await attempt('bucket rotated');
    expect(await rotationOf(w.s, dbPath)).toMatchObject({ state: 'delivering', immediate: false });
    // Both secrets work now: the old one until the new one is live where the app runs.
    expect(await postgresWorks(before.DATABASE_URL ?? '')).toBe(true);
    expect(await postgresWorks((await effectiveVars(w.s, w.site)).DATABASE_URL ?? '')).toBe(true);
    // A second graceful rotate while the first still retires is 409 naming the old credential.
    const again = await w.s.as.post<{ error: { message: string } }>(`${bucketPath}/rotate`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(before.STORAGE_ACCESS_KEY);

    queued = await deliverQueued(queued);
    await attempt('delivered');
    await stage.app.runScheduled();
    await attempt('tick 1');
    await stage.app.runScheduled();
    await attempt('tick 2');
    expect(failures).toEqual([]);

    const db = await rotationOf(w.s, dbPath);
    expect(db.state).toBe('done');
    expect(db.live_at).not.toBeNull();
    expect(db.retired_at).not.toBeNull();
    expect((await rotationOf(w.s, bucketPath)).state).toBe('done');
    const now = stage.running.get(siteId) ?? {};
    expect(userOf(now.DATABASE_URL)).toMatch(/^c_[a-z0-9]{8}$/);
    expect(userOf(now.DATABASE_URL)).not.toBe(userOf(before.DATABASE_URL));
    expect(await postgresWorks(before.DATABASE_URL ?? '')).toBe(false);
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
    const pulled = await effectiveVars(w.s, w.site);
    const dbPath = `${w.site}/connections/database/${w.db}`;
    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    const r = await rotationOf(w.s, dbPath);
    expect(r.state).toBe('delivering');
    const deadline = new Date(r.retires_by ?? '');
    // No target and no RUNTIME_PATCH_URL here: nothing is confirmed live, so the grace decides.
    expect(deadline.getTime() - stage.clock.at.getTime()).toBe(3600_000);
    stage.clock.at = new Date(deadline.getTime() - 1000);
    await stage.app.runScheduled();
    expect(await postgresWorks(pulled.DATABASE_URL ?? '')).toBe(true);
    // The app pulls again before the deadline (a redeploy), then the deadline passes.
    const repulled = await effectiveVars(w.s, w.site);
    stage.clock.at = new Date(deadline.getTime() + 1000);
    await stage.app.runScheduled();
    expect((await rotationOf(w.s, dbPath)).state).toBe('done');
    expect(await postgresWorks(pulled.DATABASE_URL ?? '')).toBe(false);
    expect(await postgresWorks(repulled.DATABASE_URL ?? '')).toBe(true);

    expect((await w.s.as.post(`${dbPath}/rotate?immediate=true`)).status).toBe(204);
    const after = await effectiveVars(w.s, w.site);
    expect(userOf(after.DATABASE_URL)).toBe(userOf(repulled.DATABASE_URL));
    expect(await postgresWorks(repulled.DATABASE_URL ?? '')).toBe(false);
    expect(await postgresWorks(after.DATABASE_URL ?? '')).toBe(true);
    expect(await rotationOf(w.s, dbPath)).toMatchObject({ state: 'done', immediate: true });
  });

  it('a rotation a dead Worker left draining is finished by the next tick; no login or key is left that no connection owns', async () => {
    const w = await world();
    const before = await effectiveVars(w.s, w.site);
    const dbPath = `${w.site}/connections/database/${w.db}`;
    const bucketPath = `${w.site}/connections/bucket/${w.bucket}`;
    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    expect((await w.s.as.post(`${bucketPath}/rotate`)).status).toBe(204);
    // The consumer sent the patch and confirmed it, then died before the rotation moved on.
    await metadata(
      `update deliveries set status = 'live', live_at = now(), delivered_at = now() where target_id = $1 and reason = 'rotate'`,
      [w.s.sites[0]?.id],
    );
    expect((await rotationOf(w.s, dbPath)).state).toBe('draining');
    await stage.app.runScheduled();
    expect((await rotationOf(w.s, dbPath)).state).toBe('done');
    expect((await rotationOf(w.s, bucketPath)).state).toBe('done');
    const after = await effectiveVars(w.s, w.site);
    expect(await roleExists(userOf(before.DATABASE_URL))).toBe(false);
    expect(await roleExists(userOf(after.DATABASE_URL))).toBe(true);
    expect(await s3Works(before)).toBe(false);
    expect(await s3Works(after)).toBe(true);
  });

  it('a disconnect while a rotation drains removes both logins at once', async () => {
    const w = await world();
    const before = await effectiveVars(w.s, w.site);
    const dbPath = `${w.site}/connections/database/${w.db}`;
    expect((await w.s.as.post(`${dbPath}/rotate`)).status).toBe(204);
    const after = await effectiveVars(w.s, w.site);
    expect((await w.s.as.delete(dbPath)).status).toBe(200);
    expect(await roleExists(userOf(before.DATABASE_URL))).toBe(false);
    expect(await roleExists(userOf(after.DATABASE_URL))).toBe(false);
  });
});
