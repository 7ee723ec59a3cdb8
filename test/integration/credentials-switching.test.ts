import { describe, expect, it } from 'vitest';
import {
  connectionsPath,
  createBucket,
  createDatabase,
  effectiveVars,
  metadata,
  POLICY_SECRET,
  policyEnv,
  projectPath,
  type Seeded,
  seed,
} from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile, receiverForFile } from '../helpers/for-file';
import { canLogin, loginOf } from '../helpers/pg-login';
import { triggerScheduled } from '../helpers/worker';

const policies = receiverForFile();
const world = connectionsWorldForFile(() => policyEnv(policies));
const site = (p: Seeded, i: number) => p.sites[i]?.id as string;
const reconcile = () => triggerScheduled(world.worker.baseUrl);
const modeOf = async (siteId: string, resourceId: string) =>
  (
    await metadata<{ m: string }>(
      'select credential_mode as m from connections where site_id = $1 and resource_id = $2',
      [siteId, resourceId],
    )
  )[0]?.m;

describe('network policy', () => {
  it('the allowed sites of a database follow its connections, signed, re-sent until acknowledged', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id);
    const policyOf = (allowed: string[]) => (r: { path: string; body: unknown }) => {
      const b = r.body as { database_id?: string; allowed_site_ids?: string[] };
      return (
        r.path === '/policies' &&
        b.database_id === db.id &&
        JSON.stringify(b.allowed_site_ids) === JSON.stringify(allowed)
      );
    };
    await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'database', resource_id: db.id });
    await reconcile();
    const first = await policies.next(policyOf([site(p, 0)]));
    expect(policies.verifySignature(first, POLICY_SECRET)).toBe(true);
    expect(first.body).toEqual({
      database_id: db.id,
      project_id: p.project.id,
      allowed_site_ids: [site(p, 0)],
      // contract §6: the database's named principals and their allowlists (none here).
      principals: [],
    });
    const both = [site(p, 0), site(p, 1)].sort();
    // Fail the first send of the new set, armed before the change that sends it at once (a
    // late duplicate of the first set must not take the failure).
    policies.failNext(1, policyOf(both));
    await p.as.post(connectionsPath(p, site(p, 1)), {
      kind: 'database',
      resource_id: db.id,
      level: 'read-only',
    });
    await reconcile();
    expect((await policies.next(policyOf(both))).status).toBe(500);
    // The queue retries with backoff, or the next minute's run re-sends it.
    await reconcile();
    expect((await policies.next((r) => policyOf(both)(r) && r.status === 200, 30_000)).status).toBe(200);
    await p.as.delete(`${connectionsPath(p, site(p, 0))}/database/${db.id}`);
    await reconcile();
    await policies.next(policyOf([site(p, 1)]));
  });
});

describe('network policy without waiting for the minute', () => {
  it('a connection change sends the policy within seconds', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id);
    await p.as.post(connectionsPath(p, site(p, 1)), { kind: 'database', resource_id: db.id });
    const got = await policies.next(
      (r) => (r.body as { database_id?: string }).database_id === db.id,
      15_000,
    );
    expect((got.body as { allowed_site_ids: string[] }).allowed_site_ids).toEqual([site(p, 1)]);
  });
});

describe('shared credentials', () => {
  it('a connection made while the database is stopped uses the shared connect login, then switches live once it runs', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id);
    expect((await p.as.post(`${projectPath(p)}/databases/${db.id}/stop`)).status).toBe(200);
    expect(
      (await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'database', resource_id: db.id })).status,
    ).toBe(201);
    expect(await modeOf(site(p, 0), db.id)).toBe('shared');
    // The database's shared connect login, never its main user (an admin secret).
    expect(loginOf((await effectiveVars(p, site(p, 0))).DATABASE_URL as string).user).toMatch(/^w_/);
    const rotate = await p.as.post(`${connectionsPath(p, site(p, 0))}/database/${db.id}/rotate`);
    expect(rotate.status).toBe(409);
    expect((await p.as.post(`${projectPath(p)}/databases/${db.id}/start`)).status).toBe(200);
    await reconcile();
    expect(await modeOf(site(p, 0), db.id)).toBe('own');
    const url = (await effectiveVars(p, site(p, 0))).DATABASE_URL as string;
    const login = loginOf(url);
    expect(login.user).toMatch(/^c_[a-z0-9]{8}$/);
    expect(await canLogin(login.db, login.user, login.password)).toBe(true);
    const patch = await world.receiver.next((r) => {
      const b = r.body as { site_id?: string; reason?: string };
      return b.site_id === site(p, 0) && b.reason === 'credential';
    });
    expect((patch.body as { set: Record<string, string> }).set.DATABASE_URL).toBe(url);
  });

  it('starting the database switches those connections within seconds, without the minute reconciler', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id);
    expect((await p.as.post(`${projectPath(p)}/databases/${db.id}/stop`)).status).toBe(200);
    expect(
      (await p.as.post(connectionsPath(p, site(p, 1)), { kind: 'database', resource_id: db.id })).status,
    ).toBe(201);
    expect(await modeOf(site(p, 1), db.id)).toBe('shared');
    expect((await p.as.post(`${projectPath(p)}/databases/${db.id}/start`)).status).toBe(200);
    // No reconcile(): the start queued the switch itself.
    const patch = await world.receiver.next((r) => {
      const b = r.body as { site_id?: string; reason?: string };
      return b.site_id === site(p, 1) && b.reason === 'credential';
    }, 15_000);
    expect(await modeOf(site(p, 1), db.id)).toBe('own');
    const url = (patch.body as { set: Record<string, string> }).set.DATABASE_URL as string;
    const login = loginOf(url);
    expect(login.user).toMatch(/^c_[a-z0-9]{8}$/);
    expect(await canLogin(login.db, login.user, login.password)).toBe(true);
  });

  it('a standalone MongoDB hands its shared user to apps, and rotate answers 409', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id, 'mongodb', { replica_set: false });
    expect(
      (await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'database', resource_id: db.id })).status,
    ).toBe(201);
    expect(await modeOf(site(p, 0), db.id)).toBe('shared');
    expect(new URL((await effectiveVars(p, site(p, 0))).MONGODB_URI as string).username).toMatch(/^u_/);
    const rotate = await p.as.post<{ error: { code: string } }>(
      `${connectionsPath(p, site(p, 0))}/database/${db.id}/rotate`,
    );
    expect(rotate.status).toBe(409);
    // A replica-set database gives its own c_ user with readWrite on that database only.
    const rs = await createDatabase(p.as, p.project.id, 'mongodb');
    await p.as.post(connectionsPath(p, site(p, 1)), {
      kind: 'database',
      resource_id: rs.id,
      level: 'read-only',
    });
    const user = new URL((await effectiveVars(p, site(p, 1))).MONGODB_URI as string).username;
    expect(user).toMatch(/^c_[a-z0-9]{8}$/);
    expect(world.atlas.user(user)?.roles).toEqual([{ roleName: 'read', databaseName: expect.any(String) }]);
  });
});

/** Makes site `i` a legacy site whose connection to `dbId` is served by the shared user. */
async function makeLegacy(p: Seeded, i: number, dbId: string): Promise<void> {
  await metadata(
    `insert into connections (id, project_id, site_id, kind, resource_id, level, credential_mode, holds_plain)
     values (gen_random_uuid(), $1, $2, 'database', $3, 'connect', 'shared', true)`,
    [p.project.id, site(p, i), dbId],
  );
  await metadata('update sites set legacy_credentials = true where id = $1', [site(p, i)]);
}

describe('legacy sites', () => {
  it('switch to their own credential at their next deploy, which hands it', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id);
    await makeLegacy(p, 0, db.id);
    expect(loginOf((await effectiveVars(p, site(p, 0))).DATABASE_URL as string).user).toMatch(/^u_/);
    const deploy = await p.as.post<{ env_names: string[] }>(
      `${projectPath(p)}/sites/${site(p, 0)}/deploys`,
      {},
    );
    expect(deploy.status).toBe(201);
    expect(await modeOf(site(p, 0), db.id)).toBe('own');
    const login = loginOf((await effectiveVars(p, site(p, 0))).DATABASE_URL as string);
    expect(login.user).toMatch(/^c_/);
    expect(await canLogin(login.db, login.user, login.password)).toBe(true);
    const [flag] = await metadata<{ l: boolean }>('select legacy_credentials as l from sites where id = $1', [
      site(p, 0),
    ]);
    expect(flag?.l).toBe(false);
  });

  it('switch when any connection on the project changes, without a deploy', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id);
    await makeLegacy(p, 0, db.id);
    const bucket = await createBucket(p.as, p.project.id);
    expect(
      (await p.as.post(connectionsPath(p, site(p, 1)), { kind: 'bucket', resource_id: bucket.id })).status,
    ).toBe(201);
    await eventually(
      () => modeOf(site(p, 0), db.id),
      (m) => m === 'own',
      30_000,
      'legacy connection switched',
    );
    await world.receiver.next((r) => {
      const b = r.body as { site_id?: string; reason?: string };
      return b.site_id === site(p, 0) && b.reason === 'credential';
    });
  });
});

describe('deleting a bucket', () => {
  it("removes its own key and its connections' keys at the provider", async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const bucket = await createBucket(p.as, p.project.id);
    await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'bucket', resource_id: bucket.id });
    const [row] = await metadata<{ physical: string }>(
      'select physical_name as physical from buckets where id = $1',
      [bucket.id],
    );
    const usersOf = () =>
      Object.values(world.aws.state().users).filter((u) => u.path === `/tether/${row?.physical}/`).length;
    expect(usersOf()).toBe(2);
    expect((await p.as.delete(`${projectPath(p)}/buckets/${bucket.id}`)).status).toBe(200);
    // As if the cleanups had waited a minute for a lost message: the reconciler sends them.
    await metadata(
      "update credential_cleanups set created_at = now() - interval '2 minutes' where resource_id = $1",
      [bucket.id],
    );
    await reconcile();
    await eventually(
      async () => usersOf(),
      (n) => n === 0,
      30_000,
      'bucket keys removed',
    );
  });
});
