/**
 * The daily sweep's slices run on the queue, not in the tick: with a lap spread over a day
 * (`RECONCILER_SWEEP_MINUTES` 1440) a tick only pages the slice's ids and sends them as
 * `reconcile-slice` messages; the Worker's queue consumer checks them. A bucket whose key was
 * deleted at IAM gets a new one that way, with no failure left on record.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile } from '../helpers/for-file';
import { deleteKeyAtIam } from '../helpers/iam-console';
import { connectedBucket, failure, keyOf, nextInSlice } from '../helpers/sweep-slices';
import { triggerScheduled } from '../helpers/worker';

const world = connectionsWorldForFile(() => ({ RECONCILER_SWEEP_MINUTES: '1440' }));

describe('queued sweep slices', () => {
  it("a tick sends the slice to the queue, whose consumer replaces a bucket's deleted key", async () => {
    const { p, bucketId, key } = await connectedBucket(world);
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
