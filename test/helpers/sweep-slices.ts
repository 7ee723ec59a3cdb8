/**
 * The daily sweep of bucket keys as its queued-slice tests drive it: a connected bucket whose
 * key can be deleted behind Tether's back, the sweep's cursor put just before it (so the next
 * tick's slice starts with it), and what the sweep recorded about it.
 */
import { expect } from 'vitest';
import {
  type ConnectionsWorld,
  connectionsPath,
  createBucket,
  effectiveVars,
  metadata,
  type Seeded,
  seed,
} from './connections';

/** The sweep the slice tests drive (the failure records' step and the cursor's name). */
export const BUCKET_SWEEP = 'sweep:bucket-keys';

/** A site connected to a new bucket, and the key its variables hold. */
export async function connectedBucket(
  world: ConnectionsWorld,
): Promise<{ p: Seeded; bucketId: string; key: string }> {
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
export async function nextInSlice(bucketId: string): Promise<void> {
  const [prev] = await metadata<{ id: string }>(
    'select id from buckets where deleted_at is null and id < $1 order by id desc limit 1',
    [bucketId],
  );
  await metadata(
    `insert into reconciler_state (name, cursor) values ($1, $2)
     on conflict (name) do update set cursor = excluded.cursor`,
    [BUCKET_SWEEP, prev?.id ?? null],
  );
}

/** The bucket key the first site's variables hold now. */
export const keyOf = async (p: Seeded) =>
  (await effectiveVars(p, p.sites[0]?.id as string)).STORAGE_ACCESS_KEY;

/** The sweep's failure record of `bucketId`, if any. */
export const failure = async (bucketId: string) =>
  (
    await metadata<{ attempts: number; last_error: string | null }>(
      'select attempts, last_error from reconcile_failures where step = $1 and item_id = $2',
      [BUCKET_SWEEP, bucketId],
    )
  )[0];
