/**
 * A connection's own bucket key that is gone at the provider (deleted in the IAM console, say).
 * Unlike a database role it cannot come back with the same id and secret, so the reconciler
 * gives the connection a new key at its level and hands it to the running app as a live patch
 * (reason `credential`). The key user left without its key is an orphan from then on, removed
 * by the orphan step once its grace period is over, and so is a second key nothing names on a user
 * whose other key is named (a rotate that died between IAM and its rows). IAM reads are eventually consistent, so a
 * site whose credentials changed in the last {@link KEY_SETTLE_MS} is judged at a later pass:
 * a key made a moment ago may not be listed yet. Key users whose keys nothing names (a failed
 * drop, the user left behind by a replaced key) are removed once past their grace period.
 */
import { and, eq, gt } from 'drizzle-orm';
import { type buckets, connections, deliveries } from '../../../db/schema';
import { storedLevel } from '../../domain/levels';
import { storageAccount } from '../../kinds/bucket/bucket-system';
import { isCredentialLevel } from '../../kinds/registry';
import { mapLimit } from '../../lib/map-limit';
import type { JobContext } from '../../request-context';
import { enqueueDeliveries } from '../delivery/deliveries';
import { createConnectionCredential } from './connection-credential';
import { namedAmong, pastGrace } from './drift';
import { droppedCredentialEvents } from './repair-events';
import { type CredentialHolder, installOwnCredential } from './switch';

/** How long after a site's last connection change its keys are left alone. */
export const KEY_SETTLE_MS = 5 * 60_000;
const CONNECTION_NAME = /^c_[a-z0-9]{8}$/;

/** Whether the site had a live patch (a connect, level change, rotate or switch) lately. */
async function changedLately(ctx: JobContext, siteId: string, now: number): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(
      and(
        eq(deliveries.kind, 'runtime_patch'),
        eq(deliveries.targetId, siteId),
        gt(deliveries.createdAt, new Date(now - KEY_SETTLE_MS)),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** A bucket as the sweep reads it. */
type BucketRow = typeof buckets.$inferSelect;

/**
 * Checks one bucket's keys at the provider (one listing of its key users, one per user for
 * their keys): gives every connection whose own key is missing a new one, and removes key users
 * past their grace period whose keys nothing names. Returns how many things it changed.
 */
export async function checkBucketKeys(ctx: JobContext, bucket: BucketRow): Promise<number> {
  const now = ctx.clock.now().getTime();
  const s3 = storageAccount.adapter(ctx.adapters);
  if (!s3) return 0;
  const users = await s3.listKeyUsers(bucket.physicalName);
  const keysByUser = await mapLimit(users, (u) => s3.keysOf(u.userName), 4);
  const present = new Set(keysByUser.flat().map((k) => k.accessKeyId));
  const named = await namedAmong(ctx.db, 'bucket', [...present]);
  let changed = 0;
  for (const [i, user] of users.entries()) {
    const keys = keysByUser[i] ?? [];
    if (!CONNECTION_NAME.test(user.userName) || !pastGrace(user.createdAt, now)) continue;
    if (keys.some((k) => named.has(k.accessKeyId))) {
      // A second key nothing names (a rotation whose Worker died before its rows were written)
      // would hold IAM's second slot for good: it goes once past its grace.
      for (const stray of keys.filter((k) => !named.has(k.accessKeyId) && pastGrace(k.createdAt, now))) {
        await s3.deleteKey(bucket.physicalName, stray.accessKeyId);
        changed++;
      }
      continue;
    }
    await s3.dropUser(user.userName);
    changed++;
    await droppedCredentialEvents(ctx.db, [
      { name: user.userName, kind: 'bucket', physical: bucket.physicalName },
    ]);
  }
  const rows = await ctx.db
    .select()
    .from(connections)
    .where(
      and(
        eq(connections.kind, 'bucket'),
        eq(connections.credentialMode, 'own'),
        eq(connections.resourceId, bucket.id),
      ),
    );
  const deliveryIds: string[] = [];
  for (const conn of rows) {
    if (!conn.credentialName || present.has(conn.credentialName)) continue;
    if (await changedLately(ctx, conn.siteId, now)) continue;
    const target = { kind: 'bucket' as const, resource: bucket };
    const level = storedLevel(conn);
    if (!isCredentialLevel(level)) continue;
    const made = await createConnectionCredential(ctx, { target, level });
    if (made.mode !== 'own') continue;
    const ids = await installOwnCredential(
      ctx,
      conn satisfies CredentialHolder,
      target,
      made,
      'key replaced',
    );
    if (ids.length > 0) changed++;
    deliveryIds.push(...ids);
  }
  await enqueueDeliveries(ctx, deliveryIds);
  return changed;
}
