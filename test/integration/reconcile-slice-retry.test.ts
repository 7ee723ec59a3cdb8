/**
 * A queued sweep slice that IAM throttles: the consumer's IAM calls are refused (400 Throttling)
 * on every attempt, so the bucket's check fails; it is recorded with IAM's words and nothing is
 * changed. Once its backoff is over, a later tick takes it among its due retries and sends it to
 * the queue again, whose consumer then replaces the deleted key and clears the record. Its own
 * file and Worker: the refusals hold for every IAM call, whichever bucket of the slice asks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { metadata } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile } from '../helpers/for-file';
import { deleteKeyAtIam } from '../helpers/iam-console';
import { BUCKET_SWEEP, connectedBucket, failure, keyOf, nextInSlice } from '../helpers/sweep-slices';
import { triggerScheduled } from '../helpers/worker';

const world = connectionsWorldForFile(() => ({ RECONCILER_SWEEP_MINUTES: '1440' }));

afterAll(async () => {
  world.aws.throttle.release();
});

describe('a throttled sweep slice', () => {
  it('is recorded with the throttling, changes nothing, and is retried by a later tick until the key is replaced', async () => {
    const { p, bucketId, key } = await connectedBucket(world);
    await deleteKeyAtIam(world.aws, key);
    await nextInSlice(bucketId);

    world.aws.throttle.hold();
    try {
      await triggerScheduled(world.worker.baseUrl);
      const failed = await eventually(
        () => failure(bucketId),
        (f) => f !== undefined,
        30_000,
        "the throttled bucket's failure recorded",
      );
      expect(failed?.attempts).toBe(1);
      expect(failed?.last_error).toMatch(/Throttling/);
    } finally {
      world.aws.throttle.release();
    }
    expect(await keyOf(p)).toBe(key);

    // Its backoff over (moved, not waited for), first among the retries due.
    await metadata(
      "update reconcile_failures set retry_at = now() - interval '1 day' where step = $1 and item_id = $2",
      [BUCKET_SWEEP, bucketId],
    );
    await triggerScheduled(world.worker.baseUrl);
    const fresh = await eventually(
      () => keyOf(p),
      (k) => k !== key,
      30_000,
      'key replaced by the retried slice',
    );
    const owner = Object.values(world.aws.state().users).find((u) => u.keys.some((k) => k.id === fresh));
    expect(owner?.path).toMatch(/^\/tether\//);
    await eventually(
      () => failure(bucketId),
      (f) => f === undefined,
      30_000,
      "the bucket's failure record cleared",
    );
  });
});
