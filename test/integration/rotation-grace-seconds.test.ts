/**
 * `?grace_seconds=N` (docs/contract.md §14): a service credential's and a principal's rotate end
 * the old secret at once, or with N keep it working beside the new one until the reconciler's
 * tick after the deadline; a connection's graceful rotate takes N as its deadline. Anything but a
 * whole number from 0 to 86400 is 400 naming the field, with nothing changed. The Worker runs
 * here (test/helpers/in-process-app.ts) on a clock the test moves.
 */
import { AwsClient } from 'aws4fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBucket, createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';
import { canLogin, roleExists } from '../helpers/pg-login';

let at = new Date('2031-05-01T08:00:00.000Z');
let app: InProcessApp;

beforeAll(async () => {
  app = await startInProcessApp({}, undefined, { now: () => at });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

type Key = { access_key_id: string; secret_access_key: string };
type Login = { id: string; username: string; password: string };
type Failure = { error: { code: string; field?: string; message: string } };

/** Lists the bucket with `key`; true on 200. */
async function s3Works(key: Key, where: { endpoint: string; bucket: string; region: string }) {
  const client = new AwsClient({
    accessKeyId: key.access_key_id,
    secretAccessKey: key.secret_access_key,
    service: 's3',
    region: where.region,
    retries: 0,
  });
  const res = await client.fetch(`${where.endpoint}/${where.bucket}?list-type=2`);
  await res.arrayBuffer();
  return res.status === 200;
}

/** Moves the clock past `seconds` from now and runs the reconciler once. */
async function tickAfter(seconds: number): Promise<void> {
  at = new Date(at.getTime() + seconds * 1000 + 1000);
  await app.runScheduled();
}

async function project(): Promise<{ s: Seeded; base: string }> {
  const s = await seed(app.baseUrl, 1);
  return { s, base: `/api/v1/projects/${s.project.id}` };
}

const retireEvents = async (projectId: string) =>
  (
    await metadata<{ action: string }>(
      `select action from activity_events where project_id = $1 and action = 'credential.retire'`,
      [projectId],
    )
  ).length;

describe('grace_seconds on a rotate', () => {
  it('refuses anything but a whole number of seconds from 0 to 86400, naming the field, with nothing changed', async () => {
    const { s, base } = await project();
    const bucket = await createBucket(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    const creds = `${base}/buckets/${bucket.id}/credentials`;
    const before = (await s.as.get<Key>(creds)).body;
    const principal = await s.as.post<Login>(`${base}/databases/${db.id}/principals`, {
      name: 'etl',
      level: 'read-only',
    });
    expect(principal.status, principal.text).toBe(201);
    const conn = `${base}/sites/${s.sites[0]?.id}/connections/database/${db.id}`;
    for (const bad of ['abc', '-1', '86401', '1.5', '', '1e3', '9999999']) {
      for (const path of [
        `${creds}/rotate`,
        `${base}/databases/${db.id}/principals/${principal.body.id}/rotate`,
        `${conn}/rotate`,
      ]) {
        const res = await s.as.post<Failure>(`${path}?grace_seconds=${encodeURIComponent(bad)}`);
        expect(res.status, `${path} ${bad}`).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'grace_seconds' });
      }
    }
    const both = await s.as.post<Failure>(`${conn}/rotate?immediate=true&grace_seconds=60`);
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'grace_seconds' });
    // A database's main user keeps one password: no grace, and its password stays.
    const main = `${base}/databases/${db.id}/credentials`;
    const password = (await s.as.get<{ password: string }>(main)).body.password;
    const refused = await s.as.post<Failure>(`${main}/rotate?grace_seconds=60`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('grace_seconds');
    expect(refused.body.error.message).toContain('one password at a time');
    expect((await s.as.get<{ password: string }>(main)).body.password).toBe(password);
    expect((await s.as.get<Key>(creds)).body).toEqual(before);
    expect((await s.as.get<{ state: string }>(`${conn}/rotation`)).body.state).toBe('none');
    const listed = await s.as.get<{ principals: Array<{ username: string }> }>(
      `${base}/databases/${db.id}/principals`,
    );
    expect(listed.body.principals[0]?.username).toBe(principal.body.username);
  });

  it("a database principal's old login works beside the new one until the deadline, then is dropped", async () => {
    const { s, base } = await project();
    const db = await createDatabase(s.as, s.project.id);
    const physical = (await s.as.get<{ url: string }>(`${base}/databases/${db.id}/credentials`)).body.url;
    const database = new URL(physical).pathname.slice(1);
    const made = await s.as.post<Login>(`${base}/databases/${db.id}/principals`, {
      name: 'reports',
      level: 'read-only',
    });
    expect(made.status, made.text).toBe(201);
    const path = `${base}/databases/${db.id}/principals/${made.body.id}/rotate`;
    const rotated = await s.as.post<Login>(`${path}?grace_seconds=600`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.username).toMatch(/^c_[a-z0-9]{8}$/);
    expect(rotated.body.username).not.toBe(made.body.username);
    expect(await canLogin(database, made.body.username, made.body.password)).toBe(true);
    expect(await canLogin(database, rotated.body.username, rotated.body.password)).toBe(true);
    // A second graceful rotate while the old login still works would make a third: 409 naming it.
    const again = await s.as.post<Failure>(`${path}?grace_seconds=600`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(made.body.username);
    // The tick before the deadline keeps it; the one after drops it.
    await tickAfter(598);
    expect(await canLogin(database, made.body.username, made.body.password)).toBe(true);
    await tickAfter(1);
    expect(await roleExists(made.body.username)).toBe(false);
    expect(await canLogin(database, rotated.body.username, rotated.body.password)).toBe(true);
    expect(await retireEvents(s.project.id)).toBe(1);
    // Without grace_seconds the old secret ends at once, as §7 has it.
    const now = await s.as.post<Login>(path);
    expect(now.status).toBe(200);
    expect(now.body.username).toBe(rotated.body.username);
    expect(await canLogin(database, rotated.body.username, rotated.body.password)).toBe(false);
    expect(await canLogin(database, now.body.username, now.body.password)).toBe(true);
  });

  it("a bucket principal's old key works until an immediate rotate refuses both old keys at once; a revoke takes a kept key too", async () => {
    const { s, base } = await project();
    const bucket = await createBucket(s.as, s.project.id);
    const where = (
      await s.as.get<{ endpoint: string; bucket: string; region: string }>(
        `${base}/buckets/${bucket.id}/credentials`,
      )
    ).body;
    const made = await s.as.post<Key & { id: string }>(`${base}/buckets/${bucket.id}/principals`, {
      name: 'backup',
      level: 'read',
    });
    expect(made.status, made.text).toBe(201);
    const path = `${base}/buckets/${bucket.id}/principals/${made.body.id}`;
    const graceful = await s.as.post<Key>(`${path}/rotate?grace_seconds=3600`);
    expect(graceful.status, graceful.text).toBe(200);
    expect(graceful.body.access_key_id).not.toBe(made.body.access_key_id);
    expect(await s3Works(made.body, where)).toBe(true);
    expect(await s3Works(graceful.body, where)).toBe(true);
    const leaked = await s.as.post<Key>(`${path}/rotate`);
    expect(leaked.status, leaked.text).toBe(200);
    expect(await s3Works(made.body, where)).toBe(false);
    expect(await s3Works(graceful.body, where)).toBe(false);
    expect(await s3Works(leaked.body, where)).toBe(true);

    const kept = await s.as.post<Key>(`${path}/rotate?grace_seconds=3600`);
    expect(kept.status, kept.text).toBe(200);
    expect(await s3Works(leaked.body, where)).toBe(true);
    expect((await s.as.delete<{ revoked: boolean }>(path)).body.revoked).toBe(true);
    expect(await s3Works(leaked.body, where)).toBe(false);
    expect(await s3Works(kept.body, where)).toBe(false);
    // Nothing is left for the reconciler: the kept key's retirement was closed with the revoke.
    const open = await metadata(
      `select 1 from credential_retirements where principal_id = $1 and retired_at is null`,
      [made.body.id],
    );
    expect(open).toEqual([]);
  });

  it("the bucket's own key with grace_seconds: the old key works until the deadline; 0 ends it at once", async () => {
    const { s, base } = await project();
    const bucket = await createBucket(s.as, s.project.id);
    const creds = `${base}/buckets/${bucket.id}/credentials`;
    const before = (await s.as.get<Key & { endpoint: string; bucket: string; region: string }>(creds)).body;
    const rotated = await s.as.post<Key>(`${creds}/rotate?grace_seconds=120`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.access_key_id).not.toBe(before.access_key_id);
    expect(await s3Works(before, before)).toBe(true);
    expect(await s3Works(rotated.body, before)).toBe(true);
    expect((await s.as.post(`${creds}/rotate?grace_seconds=120`)).status).toBe(409);
    await tickAfter(120);
    expect(await s3Works(before, before)).toBe(false);
    expect(await s3Works(rotated.body, before)).toBe(true);
    expect(await retireEvents(s.project.id)).toBe(1);
    const zero = await s.as.post<Key>(`${creds}/rotate?grace_seconds=0`);
    expect(zero.status, zero.text).toBe(200);
    expect(await s3Works(rotated.body, before)).toBe(false);
    expect(await s3Works(zero.body, before)).toBe(true);
  });

  it("a connection's graceful rotate retires by grace_seconds instead of ROTATION_GRACE_SECONDS", async () => {
    const { s, base } = await project();
    const db = await createDatabase(s.as, s.project.id);
    const conn = `${base}/sites/${s.sites[0]?.id}/connections/database/${db.id}`;
    expect((await s.as.post(`${conn}/rotate?grace_seconds=90`)).status).toBe(204);
    const r = (await s.as.get<{ state: string; started_at: string; retires_by: string }>(`${conn}/rotation`))
      .body;
    expect(r.state).toBe('delivering');
    expect(new Date(r.retires_by).getTime() - new Date(r.started_at).getTime()).toBe(90_000);
    await tickAfter(90);
    expect((await s.as.get<{ state: string }>(`${conn}/rotation`)).body.state).toBe('done');
  });
});
