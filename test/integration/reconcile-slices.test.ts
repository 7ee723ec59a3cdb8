/**
 * The daily sweep's slices run on the queue, not in the tick: with a lap spread over a day
 * (`RECONCILER_SWEEP_MINUTES` 1440) a tick only pages the slice's ids and sends them as
 * `reconcile-slice` messages; the Worker's queue consumer checks them. A bucket whose key was
 * deleted at IAM gets a new one that way, with no failure left on record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectionsWorld,
  connectionsPath,
  createBucket,
  effectiveVars,
  metadata,
  type Seeded,
  seed,
  startConnectionsWorld,
} from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { deleteKeyAtIam } from '../helpers/iam-console';
import { triggerScheduled } from '../helpers/worker';

const SWEEP = 'sweep:bucket-keys';
let world: ConnectionsWorld;

beforeAll(async () => {
  world = await startConnectionsWorld({ RECONCILER_SWEEP_MINUTES: '1440' });
});
afterAll(async () => {
  await world?.stop();
});

/** A site connected to a new bucket, and the key its variables hold. */
async function connectedBucket(): Promise<{ p: Seeded; bucketId: string; key: string }> {
  const p = await seed(world.worker.baseUrl, 1);
  const bucket = await createBucket(p.as, p.project.id);
  const site = p.sites[0]?.id as string;
  const res = await p.as.post(connectionsPath(p, site), {
    kind: 'bucket',
    resource_id: bucket.id,
    level: 'read',
  });
  expect(res.status).toBe(201);
  // Past the minutes in which a missing key may just not be listed yet.
  await metadata("update deliveries set created_at = now() - interval '6 minutes' where target_id = $1", [
    site,
  ]);
  return { p, bucketId: bucket.id, key: (await effectiveVars(p, site)).STORAGE_ACCESS_KEY as string };
}

/** Puts the sweep's cursor just before `bucketId`, so the next tick's slice starts with it. */
async function nextInSlice(bucketId: string): Promise<void> {
  const [prev] = await metadata<{ id: string }>(
    'select id from buckets where deleted_at is null and id < $1 order by id desc limit 1',
    [bucketId],
  );
  await metadata(
    `insert into reconciler_state (name, cursor) values ($1, $2)
     on conflict (name) do update set cursor = excluded.cursor`,
    [SWEEP, prev?.id ?? null],
  );
}

const keyOf = async (p: Seeded) => (await effectiveVars(p, p.sites[0]?.id as string)).STORAGE_ACCESS_KEY;
/** The sweep's failure record of `bucketId`, if any. */
const failure = async (bucketId: string) =>
  (
    await metadata<{ attempts: number; last_error: string | null }>(
      'select attempts, last_error from reconcile_failures where step = $1 and item_id = $2',
      [SWEEP, bucketId],
    )
  )[0];

describe('queued sweep slices', () => {
  it("a tick sends the slice to the queue, whose consumer replaces a bucket's deleted key", async () => {
    const { p, bucketId, key } = await connectedBucket();
    await deleteKeyAtIam(world.aws, key);
    await nextInSlice(bucketId);
    await triggerScheduled(world.worker.baseUrl);
    const fresh = await eventually(
      () => keyOf(p),
      (k) => k !== key,
      30_000,
      'key replaced by the queued slice',
    );
    const owner = Object.values(world.aws.state().users).find((u) => u.keys.some((k) => k.id === fresh));
    expect(owner?.path).toMatch(/^\/tether\//);
    expect(await failure(bucketId)).toBeUndefined();
  });
});
