/**
 * A Worker that dies mid-rotation (docs/contract.md §14) leaves nothing the reconciler does not
 * finish, and the cluster and IAM end holding exactly the logins and keys connections own: dead
 * after making the new login and key but before writing them (the sweeps remove both once past
 * their grace, and the next rotate finds IAM's second key slot free), and dead after retiring
 * the old ones but before recording it (the next tick records the rotation done).
 * rotation-graceful.test.ts covers a Worker dead while the rotation drained. The Worker runs here
 * (test/helpers/in-process-app.ts) on a clock the test moves; what the dead Worker had done is
 * done to the cluster and IAM directly, through the same admin adapters.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rolesOf } from '../../functions/adapters/postgres-sql';
import { AwsS3Admin } from '../../functions/adapters/s3-admin';
import { createBucket, createDatabase, metadata, type Seeded, seed } from '../helpers/connections';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';
import { localPostgresAdmin, superuser } from '../helpers/pg-login';
import { failuresWith } from '../helpers/rotation-app';
import { nextInSlice } from '../helpers/sweep-slices';

let at = new Date();
let app: InProcessApp;
const env = inject('workerEnv') as Record<string, string>;
const iam = new AwsS3Admin({
  accessKeyId: env.IAM_ACCESS_KEY_ID as string,
  secretAccessKey: env.IAM_SECRET_ACCESS_KEY as string,
  iamEndpoint: env.IAM_ENDPOINT as string,
  storageEndpoint: env.STORAGE_ENDPOINT as string,
});

beforeAll(async () => {
  app = await startInProcessApp({}, undefined, { now: () => at });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

/** A site connected to a PostgreSQL database and a bucket, with the values it runs with. */
async function world() {
  const s: Seeded = await seed(app.baseUrl, 1);
  const db = await createDatabase(s.as, s.project.id);
  const bucket = await createBucket(s.as, s.project.id);
  const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
  const vars = await effective(s, site);
  return {
    s,
    site,
    bucketId: bucket.id,
    vars,
    database: new URL(vars.DATABASE_URL ?? '').pathname.slice(1),
    bucket: vars.STORAGE_BUCKET as string,
    paths: [`${site}/connections/database/${db.id}`, `${site}/connections/bucket/${bucket.id}`],
  };
}

const effective = async (s: Seeded, site: string) =>
  (await s.as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
const userOf = (url: string | undefined) => new URL(url ?? '').username;

/** The `c_` logins the cluster holds in the database's groups. */
async function loginsOf(database: string): Promise<string[]> {
  const su = await superuser();
  try {
    const { owner, reader } = rolesOf(database);
    const rows = await su.query<{ name: string }>(
      `select r.rolname as name from pg_roles r join pg_auth_members m on m.member = r.oid
         join pg_roles g on g.oid = m.roleid
        where g.rolname = any($1) and r.rolname like 'c\\_%' order by 1`,
      [[owner, reader]],
    );
    return [...new Set(rows.rows.map((r) => r.name))];
  } finally {
    await su.end();
  }
}

/** The access keys IAM holds for the bucket's connection key users. */
async function keysOf(bucket: string): Promise<string[]> {
  const users = (await iam.listKeyUsers(bucket)).filter((u) => u.userName.startsWith('c_'));
  const keys = await Promise.all(users.map((u) => iam.keysOf(u.userName)));
  return keys
    .flat()
    .map((k) => k.accessKeyId)
    .sort();
}

/** Runs the reconciler once, then hands the Worker the sweep slices it queued. */
async function tick(): Promise<void> {
  const from = app.sent.length;
  await app.runScheduled();
  for (const message of app.sent.slice(from))
    if (message.type === 'reconcile-slice') await app.runQueue([message]);
}

describe('a Worker dead mid-rotation', () => {
  it('after making the new login and key, before writing them: the sweeps remove both; nothing is left that no connection owns', async () => {
    const w = await world();
    const login = userOf(w.vars.DATABASE_URL);
    const key = w.vars.STORAGE_ACCESS_KEY as string;
    // What the rotate had done at the outside systems when its Worker died.
    const stray = await localPostgresAdmin().createLogin(w.database, 'connect', true);
    const strayKey = await iam.addKey(w.bucket, key);
    expect(await loginsOf(w.database)).toEqual([login, stray.name].sort());
    expect(await keysOf(w.bucket)).toEqual([key, strayKey.accessKeyId].sort());

    // Inside their grace (a rotate may be writing them) they stay; past it the sweeps take them.
    await metadata(
      `insert into reconciler_state (name, cursor) values ('sweep:postgresql-logins', $1)
       on conflict (name) do update set cursor = excluded.cursor`,
      [stray.name.slice(0, -1)],
    );
    await nextInSlice(w.bucketId);
    await tick();
    expect(await loginsOf(w.database)).toContain(stray.name);
    at = new Date(at.getTime() + 11 * 60_000);
    await metadata(`update reconciler_state set cursor = $1 where name = 'sweep:postgresql-logins'`, [
      stray.name.slice(0, -1),
    ]);
    await nextInSlice(w.bucketId);
    await tick();
    expect(await loginsOf(w.database)).toEqual([login]);
    expect(await keysOf(w.bucket)).toEqual([key]);
    expect(await failuresWith(w.vars)).toEqual([]);

    // IAM's second key slot is free again: the next rotate is not refused.
    for (const path of w.paths) expect((await w.s.as.post(`${path}/rotate`)).status).toBe(204);
  });

  it('after retiring the old login and key, before recording it: the next tick records the rotation done', async () => {
    const w = await world();
    for (const path of w.paths) expect((await w.s.as.post(`${path}/rotate`)).status).toBe(204);
    const now = await effective(w.s, w.site);
    // The patch went out and was confirmed; the Worker retired the old secrets, then died.
    await metadata(
      `update deliveries set status = 'live', live_at = now(), delivered_at = now() where target_id = $1 and reason = 'rotate'`,
      [w.s.sites[0]?.id],
    );
    await localPostgresAdmin().dropLogin(w.database, userOf(w.vars.DATABASE_URL));
    await iam.deleteKey(w.bucket, w.vars.STORAGE_ACCESS_KEY as string);
    for (const path of w.paths)
      expect((await w.s.as.get<{ state: string }>(`${path}/rotation`)).body.state).toBe('draining');

    await tick();
    for (const path of w.paths)
      expect((await w.s.as.get<{ state: string }>(`${path}/rotation`)).body.state).toBe('done');
    const retired = await metadata(
      `select 1 from activity_events where project_id = $1 and action = 'credential.retire'`,
      [w.s.project.id],
    );
    expect(retired).toHaveLength(2);
    expect(await loginsOf(w.database)).toEqual([userOf(now.DATABASE_URL)]);
    expect(await keysOf(w.bucket)).toEqual([now.STORAGE_ACCESS_KEY]);
    expect(await failuresWith(now)).toEqual([]);
    expect(await failuresWith(w.vars)).toEqual(['database', 'bucket']);
  });
});
