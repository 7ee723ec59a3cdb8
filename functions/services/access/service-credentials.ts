/**
 * The service's own credential (specification, Per-connection credentials 7; CONTRACT §7): a
 * database's main user `u_…` and a bucket's own key, shown to admins and rotated on demand.
 * Rotating changes no app's own credential; the sites still handed the shared one (standalone
 * MongoDB, connected while stopped, apps from before per-connection credentials) get the new
 * value by live patch, reason `credential`.
 */

import { eq } from 'drizzle-orm';
import type { Tx } from '../../../db/client';
import type { BucketRow, DatabaseRow } from '../../../db/rows';
import { buckets, connections, databases } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import { storageEndpointFor } from '../../domain/storage-endpoint';
import type { Config } from '../../env';
import { ApiError } from '../../lib/errors';
import { randomPassword } from '../../lib/ids';
import { log } from '../../lib/logger';
import { deriveSiteEnv } from '../connections/derive';
import { enqueueDeliveries, recordPatches } from '../delivery/deliveries';
import { type AccessDeps, found, liveBucket, liveDatabase } from './deps';
import { type DatabaseUrls, databaseUrls } from './endpoints';

/** GET and rotate of a database's credentials. */
export type DatabaseCredentials = { user: string; password: string } & DatabaseUrls;

/** GET and rotate of a bucket's credentials. */
export interface BucketCredentials {
  access_key_id: string;
  secret_access_key: string;
  endpoint: string;
  bucket: string;
  region: string;
}

async function showDatabase(
  config: Config,
  adapters: Adapters,
  row: DatabaseRow,
): Promise<DatabaseCredentials> {
  const password = await config.keyring.decrypt(row.mainPasswordCiphertext);
  return { user: row.mainUser, password, ...databaseUrls(config, adapters, row, row.mainUser, password) };
}

async function showBucket(config: Config, row: BucketRow): Promise<BucketCredentials> {
  return {
    access_key_id: row.accessKeyId,
    secret_access_key: await config.keyring.decrypt(row.secretKeyCiphertext),
    endpoint: storageEndpointFor(config.STORAGE_ENDPOINT, row.region),
    bucket: row.physicalName,
    region: row.region,
  };
}

/** The database's main user, password and URLs, from the row a liveDatabaseQuery found. */
export function databaseCredentials(deps: AccessDeps, rows: DatabaseRow[]): Promise<DatabaseCredentials> {
  return showDatabase(deps.config, deps.adapters, found(rows, 'database'));
}

/** The bucket's own key, from the row a liveBucketQuery found. */
export function bucketCredentials(deps: AccessDeps, rows: BucketRow[]): Promise<BucketCredentials> {
  return showBucket(deps.config, found(rows, 'bucket'));
}

/**
 * Re-derives every site connected to the service around `change` (inside `tx`) and records a
 * `credential` patch for each whose variables moved: those handed the shared credential.
 */
async function patchSharedHolders(
  tx: Tx,
  deps: AccessDeps,
  projectId: string,
  resourceId: string,
  change: () => Promise<void>,
): Promise<string[]> {
  const held = await tx
    .select({ siteId: connections.siteId })
    .from(connections)
    .where(eq(connections.resourceId, resourceId));
  const before = await Promise.all(held.map((h) => deriveSiteEnv(tx, deps.config, deps.adapters, h.siteId)));
  await change();
  const patches = [];
  for (const [i, h] of held.entries()) {
    const was = before[i]?.effective ?? {};
    const now = (await deriveSiteEnv(tx, deps.config, deps.adapters, h.siteId))?.effective ?? {};
    const set = Object.keys(now)
      .filter((n) => was[n] !== now[n])
      .sort();
    patches.push({ projectId, siteId: h.siteId, reason: 'credential' as const, set, unset: [] });
  }
  return recordPatches(tx, patches);
}

/**
 * Gives the main user a new password at the cluster or Atlas, then records it with the live
 * patches of the sites handed it, in one transaction holding the database's row. A failure
 * at the outside system is 503 with nothing changed.
 */
export async function rotateDatabasePassword(
  deps: AccessDeps,
  projectId: string,
  dbId: string,
): Promise<DatabaseCredentials> {
  const row = await liveDatabase(deps.db, projectId, dbId);
  const password = randomPassword();
  const { saved, patchIds } = await deps.db.transaction(async (tx) => {
    // Concurrent rotations of one database take turns: the stored password is the one set last.
    await tx.select({ id: databases.id }).from(databases).where(eq(databases.id, row.id)).for('update');
    let updated: DatabaseRow | undefined;
    const ids = await patchSharedHolders(tx, deps, projectId, row.id, async () => {
      try {
        if (row.engine === 'postgresql')
          await deps.adapters.postgres.setLoginPassword(row.mainUser, password);
        else if (deps.adapters.mongodb) await deps.adapters.mongodb.setUserPassword(row.mainUser, password);
        else throw new Error('no MongoDB admin system is configured (MONGODB_ADMIN_URL)');
      } catch (err) {
        log.error('rotating a main password failed:', (err as Error).message);
        throw new ApiError(
          'SERVICE_UNAVAILABLE',
          'the database could not take a new password; nothing was changed, retry later',
        );
      }
      [updated] = await tx
        .update(databases)
        .set({ mainPasswordCiphertext: await deps.config.keyring.encrypt(password) })
        .where(eq(databases.id, row.id))
        .returning();
    });
    return { saved: updated as DatabaseRow, patchIds: ids };
  });
  await enqueueDeliveries(deps.queue, patchIds);
  return showDatabase(deps.config, deps.adapters, saved);
}

/**
 * Replaces the bucket's own key (a new key id and secret for the same IAM user; the old key is
 * deleted once the new one exists) and records it with the patches of sites still handed it.
 */
export async function rotateBucketKey(
  deps: AccessDeps,
  projectId: string,
  bucketId: string,
): Promise<BucketCredentials> {
  const row = await liveBucket(deps.db, projectId, bucketId);
  const s3 = deps.adapters.s3;
  if (!s3)
    throw new ApiError('SERVICE_UNAVAILABLE', 'no storage admin system is configured (IAM_ACCESS_KEY_ID)');
  const { saved, patchIds } = await deps.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(buckets).where(eq(buckets.id, row.id)).for('update');
    let updated: BucketRow | undefined;
    const ids = await patchSharedHolders(tx, deps, projectId, row.id, async () => {
      let key: { accessKeyId: string; secretAccessKey: string };
      try {
        key = await s3.rotateKey(row.physicalName, locked?.accessKeyId ?? row.accessKeyId);
      } catch (err) {
        log.error('rotating a bucket key failed:', (err as Error).message);
        throw new ApiError(
          'SERVICE_UNAVAILABLE',
          'the storage provider could not replace the key; nothing was changed, retry later',
        );
      }
      [updated] = await tx
        .update(buckets)
        .set({
          accessKeyId: key.accessKeyId,
          secretKeyCiphertext: await deps.config.keyring.encrypt(key.secretAccessKey),
        })
        .where(eq(buckets.id, row.id))
        .returning();
    });
    return { saved: updated as BucketRow, patchIds: ids };
  });
  await enqueueDeliveries(deps.queue, patchIds);
  return showBucket(deps.config, saved);
}
