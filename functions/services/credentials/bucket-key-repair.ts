/**
 * A connection's own bucket key that is gone at the provider (deleted in the IAM console, say).
 * Unlike a database role it cannot come back with the same id and secret, so the reconciler
 * gives the connection a new key at its level and hands it to the running app as a live patch
 * (reason `credential`). The key user left without its key is an orphan from then on, removed
 * by the orphan step once its grace period is over. IAM reads are eventually consistent, so a
 * site whose credentials changed in the last {@link KEY_SETTLE_MS} is judged at a later pass:
 * a key made a moment ago may not be listed yet.
 */
import { and, eq, gt, isNull } from 'drizzle-orm';
import { buckets, connections, deliveries } from '../../../db/schema';
import { isCredentialLevel, storedLevel } from '../../domain/levels';
import { enqueueDeliveries } from '../delivery/deliveries';
import { createConnectionCredential } from './connection-credential';
import { type CredentialHolder, installOwnCredential, type SwitchDeps } from './switch';

/** How long after a site's last connection change its keys are left alone. */
export const KEY_SETTLE_MS = 5 * 60_000;

/** Whether the site had a live patch (a connect, level change, rotate or switch) lately. */
async function changedLately(deps: SwitchDeps, siteId: string, now: number): Promise<boolean> {
  const [row] = await deps.db
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

/** The access key ids that exist under the key users of `bucketNames`. */
async function existingKeys(deps: SwitchDeps, bucketNames: Set<string>): Promise<Set<string> | null> {
  const s3 = deps.adapters.s3;
  if (!s3) return null;
  const keys = new Set<string>();
  for (const user of await s3.listKeyUsers()) {
    if (!bucketNames.has(user.bucket)) continue;
    for (const key of await s3.keysOf(user.userName)) keys.add(key);
  }
  return keys;
}

/**
 * Gives every bucket connection whose own key is missing at the provider a new one; returns how
 * many it replaced. Tries every connection and throws at the end if any failed.
 */
export async function replaceMissingBucketKeys(deps: SwitchDeps, now = Date.now()): Promise<number> {
  const rows = await deps.db
    .select({ conn: connections, bucket: buckets })
    .from(connections)
    .innerJoin(buckets, and(eq(buckets.id, connections.resourceId), isNull(buckets.deletedAt)))
    .where(and(eq(connections.kind, 'bucket'), eq(connections.credentialMode, 'own')));
  if (rows.length === 0) return 0;
  const present = await existingKeys(deps, new Set(rows.map((r) => r.bucket.physicalName)));
  if (!present) return 0;
  let replaced = 0;
  const failures: string[] = [];
  const deliveryIds: string[] = [];
  for (const { conn, bucket } of rows) {
    if (!conn.credentialName || present.has(conn.credentialName)) continue;
    try {
      if (await changedLately(deps, conn.siteId, now)) continue;
      const target = { kind: 'bucket' as const, resource: bucket };
      const level = storedLevel(conn);
      if (!isCredentialLevel(level)) continue;
      const made = await createConnectionCredential(deps.adapters, deps.config, target, level);
      if (made.mode !== 'own') continue;
      const ids = await installOwnCredential(deps, conn satisfies CredentialHolder, target, made);
      if (ids.length > 0) replaced++;
      deliveryIds.push(...ids);
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  await enqueueDeliveries(deps.queue, deliveryIds);
  if (failures.length > 0)
    throw new Error(`${failures.length} bucket key replacement(s) failed: ${failures[0]}`);
  return replaced;
}
