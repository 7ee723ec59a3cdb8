import { describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  connectionsPath,
  createBucket,
  createDatabase,
  effectiveVars,
  metadata,
  type Seeded,
  seed,
  startAdminOutageWorker,
} from '../helpers/connections';
import { connectionsWorldForFile } from '../helpers/for-file';
import { superuser } from '../helpers/pg-login';

const world = connectionsWorldForFile();
const site = (p: Seeded, i: number) => p.sites[i]?.id as string;

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
 * send state, and a site's live-patch `seq` counter and sending hold (`delivery_busy_until`),
 * both taken when a patch is sent, so a patch recorded before the snapshot may be sent, and its
 * hold released, while the refused requests run.
 */
const RECORD: Record<string, string> = {
  deliveries: DELIVERY_RECORD,
  sites: "to_jsonb(sites) - 'patch_seq' - 'delivery_busy_until' as site",
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
    await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'database', resource_id: pgDb.id });
    const down = await startAdminOutageWorker(world);
    try {
      const before = await snapshot(p, [pgDb.id, mongo.id]);
      // Not vacuous: the project's connection, its role and the bucket's key are all in it.
      expect(before.roles.map((r) => r.rolname)).toContain(
        new URL((await effectiveVars(p, site(p, 0))).DATABASE_URL as string).username,
      );
      expect(before.rows[0]).toHaveLength(1);
      expect(Object.keys(before.aws.users).length).toBeGreaterThan(0);
      const client = api(down.baseUrl, p.token);
      for (const body of [
        { kind: 'database', resource_id: pgDb.id },
        { kind: 'database', resource_id: mongo.id },
        { kind: 'bucket', resource_id: bucket.id },
      ]) {
        expect((await client.post(connectionsPath(p, site(p, 1)), body)).status).toBe(503);
      }
      const put = await client.put(connectionsPath(p, site(p, 1)), {
        connections: [{ kind: 'database', resource_id: pgDb.id }],
      });
      expect(put.status).toBe(503);
      expect((put.body as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await client.post(`${connectionsPath(p, site(p, 0))}/database/${pgDb.id}/rotate`)).status).toBe(
        503,
      );
      expect(
        (
          await client.post(connectionsPath(p, site(p, 0)), {
            kind: 'database',
            resource_id: pgDb.id,
            level: 'read-only',
          })
        ).status,
      ).toBe(503);
      expect(await snapshot(p, [pgDb.id, mongo.id])).toEqual(before);
      expect(
        (await p.as.post(connectionsPath(p, site(p, 1)), { kind: 'bucket', resource_id: bucket.id })).status,
      ).toBe(201);
      expect((await p.as.post(`${connectionsPath(p, site(p, 0))}/database/${pgDb.id}/rotate`)).status).toBe(
        204,
      );
    } finally {
      await down.stop();
    }
    // Starts a second Worker: slow when the whole suite shares two cores.
  }, 90_000);
});
