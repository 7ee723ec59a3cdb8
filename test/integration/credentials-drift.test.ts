/**
 * Drift repair by the reconciler on the real cluster and the stand-ins: orphaned credentials
 * dropped (each drop on its project's Activity record), missing ones restored, pending cleanups
 * finished.
 */
import { describe, expect, it } from 'vitest';
import { systemEvents } from '../helpers/activity';
import {
  connectionsPath,
  createBucket,
  createDatabase,
  effectiveVars,
  metadata,
  policyEnv,
  type Seeded,
  seed,
} from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile, receiverForFile } from '../helpers/for-file';
import { deleteKeyAtIam } from '../helpers/iam-console';
import { canLogin, clusterAdmin, loginOf, superuser } from '../helpers/pg-login';
import { triggerScheduled } from '../helpers/worker';

const policies = receiverForFile();
const world = connectionsWorldForFile(() => policyEnv(policies));
const site = (p: Seeded, i: number) => p.sites[i]?.id as string;
const reconcile = () => triggerScheduled(world.worker.baseUrl);

describe('drift repair', () => {
  it('drops an orphaned c_ role, restores a missing one, and finishes a pending cleanup', async () => {
    const p = await seed(world.worker.baseUrl, 2);
    const db = await createDatabase(p.as, p.project.id);
    await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'database', resource_id: db.id });
    const own = loginOf((await effectiveVars(p, site(p, 0))).DATABASE_URL as string);
    const [row] = await metadata<{ physical: string }>(
      'select physical_name as physical from databases where id = $1',
      [db.id],
    );
    const physical = row?.physical as string;
    const su = await superuser();
    try {
      const orphan = `c_${Math.random().toString(36).slice(2, 10).padEnd(8, '0')}`;
      const pending = `c_${Math.random().toString(36).slice(2, 10).padEnd(8, '1')}`;
      // Made as Tether makes them: by the cluster's admin role, which then may drop them.
      const admin = await clusterAdmin();
      try {
        for (const name of [orphan, pending]) {
          await admin.query(`create role ${name} login password 'x-${name}' in role ${physical}_rw`);
          await admin.query(
            `comment on role ${name} is 'tether connection role, created 2020-01-01T00:00:00.000Z'`,
          );
        }
      } finally {
        await admin.end();
      }
      // A cleanup recorded two minutes ago whose queue message was lost.
      await metadata(
        `insert into credential_cleanups (id, kind, resource_id, credential_name, created_at)
         values (gen_random_uuid(), 'database', $1, $2, now() - interval '2 minutes')`,
        [db.id, pending],
      );
      // Gone as an operator would remove it by hand (its CONNECT grant first, or the drop is refused).
      await su.query(`revoke connect on database ${physical} from ${own.user}; drop role ${own.user}`);
      await reconcile();
      const exists = async (n: string) =>
        (await su.query('select 1 from pg_roles where rolname = $1', [n])).rowCount === 1;
      expect(await exists(orphan)).toBe(false);
      // The drop is on the project's record, as the reconciler's, named with its database.
      const drops = await systemEvents(p.as, `/api/v1/projects/${p.project.id}`, 'credential.drop');
      expect(drops).toEqual([
        expect.objectContaining({
          target: { type: 'credential', id: orphan, name: `${orphan} (${db.name})` },
          details: { kind: 'database', reason: 'named by no connection or principal' },
        }),
      ]);
      expect(await canLogin(own.db, own.user, own.password)).toBe(true);
      const restored = await systemEvents(p.as, `/api/v1/projects/${p.project.id}`, 'credential.repair');
      expect(restored).toEqual([
        expect.objectContaining({ site_id: site(p, 0), details: { repair: 'login restored' } }),
      ]);
      await eventually(
        () => exists(pending),
        (e) => e === false,
        30_000,
        'pending cleanup done',
      );
    } finally {
      await su.end();
    }
  });

  it('gives a connection whose bucket key was deleted at the provider a new key at its level, as a live patch', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const bucket = await createBucket(p.as, p.project.id);
    expect(
      (
        await p.as.post(connectionsPath(p, site(p, 0)), {
          kind: 'bucket',
          resource_id: bucket.id,
          level: 'read',
        })
      ).status,
    ).toBe(201);
    const lost = (await effectiveVars(p, site(p, 0))).STORAGE_ACCESS_KEY as string;
    const holder = Object.values(world.aws.state().users).find((u) => u.keys.some((k) => k.id === lost));
    expect(holder).toBeDefined();
    // Someone deletes the key in the provider's console.
    await deleteKeyAtIam(world.aws, lost);

    // Within minutes of the site's last change a missing key may just not be listed yet: kept.
    await reconcile();
    expect((await effectiveVars(p, site(p, 0))).STORAGE_ACCESS_KEY).toBe(lost);
    await metadata("update deliveries set created_at = now() - interval '6 minutes' where target_id = $1", [
      site(p, 0),
    ]);
    await reconcile();
    const vars = await effectiveVars(p, site(p, 0));
    const fresh = vars.STORAGE_ACCESS_KEY as string;
    expect(fresh).not.toBe(lost);
    const users = Object.values(world.aws.state().users);
    const owner = users.find((u) =>
      u.keys.some((k) => k.id === fresh && k.secret === vars.STORAGE_SECRET_KEY),
    );
    expect(owner?.path).toBe(holder?.path);
    // Same level as before: the new key's policy equals the lost key's.
    expect(owner?.policies).toEqual(holder?.policies);
    const patch = await world.receiver.next((r) => {
      const b = r.body as { site_id?: string; reason?: string };
      return b.site_id === site(p, 0) && b.reason === 'credential';
    });
    expect((patch.body as { set: Record<string, string> }).set).toMatchObject({
      STORAGE_ACCESS_KEY: fresh,
      STORAGE_SECRET_KEY: vars.STORAGE_SECRET_KEY,
    });
    // A second pass finds nothing missing; the replacement is in the Activity record once.
    await reconcile();
    expect((await effectiveVars(p, site(p, 0))).STORAGE_ACCESS_KEY).toBe(fresh);
    const replaced = await systemEvents(p.as, `/api/v1/projects/${p.project.id}`, 'credential.repair');
    expect(replaced).toEqual([
      expect.objectContaining({ site_id: site(p, 0), details: { repair: 'key replaced' } }),
    ]);
  });
});
