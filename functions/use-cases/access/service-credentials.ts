/**
 * The service's own credential (contract §7; docs/connections.md): a
 * database's main user `u_…` and a bucket's own key, shown to admins and rotated on demand.
 * Rotating changes no app's own credential; the sites still handed the shared one (standalone
 * MongoDB, connected while stopped, apps from before per-connection credentials) get the new
 * value by live patch, reason `credential`.
 */

import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { runBatch } from '../../../db/client';
import type { BucketRow, DatabaseRow } from '../../../db/rows';
import { buckets, databases } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import { storageEndpointFor } from '../../domain/storage-endpoint';
import { storageAccount, storageAdmin } from '../../kinds/bucket/bucket-system';
import { setSecret } from '../../kinds/credential-provisioner';
import { engineOf } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { randomPassword } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import {
  type OpenRetirement,
  retireAllNow,
  retiredStatement,
  retirementStatement,
  stillRetiring,
} from '../credentials/retirements';
import { enqueueDeliveries } from '../delivery/deliveries';
import { bucketOf } from '../resources/buckets';
import { databaseOf } from '../resources/databases';
import { type DerivationRow, type SiteEnvInputs, siteEnvOf } from '../site-env/derive';
import { type DatabaseUrls, databaseUrls } from './endpoints';
import { serviceCredentialEvent } from './principal-events';

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
    endpoint: storageEndpointFor(storageAccount.settings(config).STORAGE_ENDPOINT, row.region),
    bucket: row.physicalName,
    region: row.region,
  };
}

/** The database's main user, password and URLs, from the row a databaseQuery found. */
export function databaseCredentials(ctx: RequestContext, rows: DatabaseRow[]): Promise<DatabaseCredentials> {
  return showDatabase(ctx.config, ctx.adapters, databaseOf(rows));
}

/** The bucket's own key, from the row a bucketQuery found. */
export function bucketCredentials(ctx: RequestContext, rows: BucketRow[]): Promise<BucketCredentials> {
  return showBucket(ctx.config, bucketOf(rows));
}

/** A service's rotation: the columns of its row that change, as the inputs of the sites handed it read them. */
type Substitute = Readonly<Record<string, string>>;

/** Connection `row` with its service's columns changed by `substitute`. */
const substituted = (row: DerivationRow, substitute: Substitute): DerivationRow => ({
  ...row,
  service: row.service && { ...row.service, ...substitute },
});

/**
 * The `credential` patches of the sites connected to service `resourceId` whose variables the
 * change moves (those handed the shared credential), derived before and after in memory from
 * the inputs read with the route's state.
 */
async function sharedHolderPatches(
  ctx: RequestContext,
  resourceId: string,
  holders: SiteEnvInputs[],
  substitute: Substitute,
): Promise<Array<{ project_id: string; site_id: string; set_names: string[] }>> {
  const patches = [];
  for (const inputs of holders) {
    const after = {
      ...inputs,
      connections: inputs.connections.map((r) =>
        r.resource_id === resourceId ? substituted(r, substitute) : r,
      ),
    };
    const was = (await siteEnvOf(ctx.config, ctx.adapters, inputs))?.effective ?? {};
    const now = (await siteEnvOf(ctx.config, ctx.adapters, after))?.effective;
    if (!now || !inputs.site) continue;
    const set = Object.keys(now)
      .filter((n) => was[n] !== now[n])
      .sort();
    if (set.length > 0)
      patches.push({ project_id: inputs.site.project_id, site_id: inputs.site.id, set_names: set });
  }
  return patches;
}

/**
 * Records `patches` with reason `credential`, only if `guard` holds once the batch's update ran
 * (the new secret is the one stored); returns the new deliveries' ids.
 */
const patchesIf = (ctx: RequestContext, patches: unknown[], guard: SQL) =>
  ctx.http.execute<{ id: string }>(sql`
    insert into deliveries (id, kind, project_id, target_id, reason, set_names, unset_names)
    select gen_random_uuid(), 'runtime_patch', p.project_id, p.site_id, 'credential', p.set_names, '[]'::jsonb
      from jsonb_to_recordset(${JSON.stringify(patches)}::jsonb) as p(project_id uuid, site_id uuid, set_names jsonb)
     where ${guard}
    returning id`);

const unavailable = (what: string) =>
  new ApiError(
    'SERVICE_UNAVAILABLE',
    `${what} could not take a new secret; nothing was changed, retry later`,
  );

/**
 * 400 for `grace_seconds` on a database's main user: PostgreSQL and MongoDB keep one password a
 * login and the main user's name is fixed (`u_<name>`), so no second secret can work beside it.
 */
const mainKeepsOnePassword = (user: string) =>
  new ApiError(
    'VALIDATION_FAILED',
    `grace_seconds: the main user ${user} keeps one password at a time (PostgreSQL and MongoDB hold one a login, and its name is fixed), so its old password cannot be kept; rotate without grace_seconds (apps' own credentials do not change), or give an outside system a principal, whose rotate takes grace_seconds`,
    'grace_seconds',
  );

/** The main user's new password at the cluster or Atlas; 503 when it cannot be set. */
async function setMainPassword(ctx: RequestContext, row: DatabaseRow, password: string): Promise<void> {
  const provisioner = engineOf(row.engine).provisioner(ctx.adapters);
  for (let attempt = 1; ; attempt++) {
    try {
      await setSecret(provisioner, row.physicalName, row.mainUser, password);
      return;
    } catch (err) {
      // Tether's own changes of one database wait on its lock (postgres-sql.ts privilegesLock);
      // an ALTER ROLE from outside Tether (an operator's) can still collide, and PostgreSQL then
      // refuses the later one: setting the same password again is harmless.
      if (attempt < 3 && /tuple concurrently updated/.test((err as Error).message)) continue;
      ctx.log.error('rotating a main password failed:', (err as Error).message);
      throw unavailable('the database');
    }
  }
}

/**
 * Gives the main user of database `rows` (a databaseQuery's answer) a new password at the
 * cluster or Atlas, then records it with the `credential` patches of the sites handed it
 * (`holders`: connectedSiteInputsQuery's rows) in one batch, guarded by the stored password
 * still being the one read: a concurrent rotation that stored its own first wins, this one puts
 * the winner's password back at the cluster and answers 409. A failure at the outside system is
 * 503 with nothing changed.
 */
export async function rotateDatabasePassword(
  ctx: RequestContext,
  rows: DatabaseRow[],
  holders: SiteEnvInputs[],
  _open: readonly OpenRetirement[],
  graceSeconds = 0,
): Promise<DatabaseCredentials> {
  const row = databaseOf(rows);
  if (graceSeconds > 0) throw mainKeepsOnePassword(row.mainUser);
  const password = randomPassword();
  const ciphertext = await ctx.config.keyring.encrypt(password);
  await setMainPassword(ctx, row, password);
  const patches = await sharedHolderPatches(ctx, row.id, holders, {
    main_password_ciphertext: ciphertext,
  });
  const [updated, current, recorded] = await runBatch(ctx.http, [
    ctx.http
      .update(databases)
      .set({ mainPasswordCiphertext: ciphertext })
      .where(
        and(
          eq(databases.id, row.id),
          eq(databases.mainPasswordCiphertext, row.mainPasswordCiphertext),
          isNull(databases.deletedAt),
        ),
      )
      .returning(),
    ctx.http
      .select({ ciphertext: databases.mainPasswordCiphertext })
      .from(databases)
      .where(and(eq(databases.id, row.id), isNull(databases.deletedAt))),
    patchesIf(
      ctx,
      patches,
      sql`exists (select 1 from databases d where d.id = ${row.id}::uuid and d.main_password_ciphertext = ${ciphertext})`,
    ),
    ...serviceCredentialEvent(
      ctx,
      { kind: 'database', resource: row },
      sql`exists (select 1 from databases d where d.id = ${row.id}::uuid and d.main_password_ciphertext = ${ciphertext})`,
    ),
  ]);
  const [saved] = updated as DatabaseRow[];
  if (!saved) {
    const [winner] = current as Array<{ ciphertext: string }>;
    if (!winner) throw new ApiError('NOT_FOUND', 'database not found');
    // The cluster must end on the stored password: put the winner's back (a simultaneous
    // ALTER ROLE can be refused, so a few tries).
    const stored = await ctx.config.keyring.decrypt(winner.ciphertext);
    for (let attempt = 1; ; attempt++) {
      try {
        await setMainPassword(ctx, row, stored);
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
    throw new ApiError('CONFLICT', 'the database was given another new password at the same time; retry');
  }
  await enqueueDeliveries(
    ctx,
    (recorded as { rows: Array<{ id: string }> }).rows.map((r) => r.id),
  );
  return showDatabase(ctx.config, ctx.adapters, saved);
}

/**
 * Replaces the bucket's own key (a new key id and secret for the same IAM user; the old key is
 * deleted once the new one exists, so of two concurrent rotations IAM lets one succeed) and
 * records it with the patches of sites still handed it, in one batch guarded by the key read.
 */
export async function rotateBucketKey(
  ctx: RequestContext,
  rows: BucketRow[],
  holders: SiteEnvInputs[],
  open: readonly OpenRetirement[],
  graceSeconds = 0,
): Promise<BucketCredentials> {
  const row = bucketOf(rows);
  const s3 = storageAdmin(ctx.adapters);
  const graceful = graceSeconds > 0;
  if (graceful && open.length > 0) throw stillRetiring(open);
  const target = { kind: 'bucket' as const, resource: row };
  let key: { accessKeyId: string; secretAccessKey: string };
  try {
    // Immediate: an old key an earlier grace keeps goes first (IAM holds two keys a user).
    if (!graceful) await retireAllNow(ctx, target, open);
    key = graceful
      ? await s3.addKey(row.physicalName, row.accessKeyId)
      : await s3.rotateKey(row.physicalName, row.accessKeyId);
  } catch (err) {
    ctx.log.error('rotating a bucket key failed:', (err as Error).message);
    throw unavailable('the storage provider');
  }
  const ciphertext = await ctx.config.keyring.encrypt(key.secretAccessKey);
  const patches = await sharedHolderPatches(ctx, row.id, holders, {
    access_key_id: key.accessKeyId,
    secret_key_ciphertext: ciphertext,
  });
  const stored = sql`exists (select 1 from buckets b where b.id = ${row.id}::uuid and b.access_key_id = ${key.accessKeyId})`;
  const retiresAt = new Date(ctx.clock.now().getTime() + graceSeconds * 1000);
  const old = { projectId: row.projectId, kind: 'bucket' as const, resourceId: row.id, principalId: null };
  const [updated, recorded] = await runBatch(ctx.http, [
    ctx.http
      .update(buckets)
      .set({ accessKeyId: key.accessKeyId, secretKeyCiphertext: ciphertext })
      .where(and(eq(buckets.id, row.id), eq(buckets.accessKeyId, row.accessKeyId), isNull(buckets.deletedAt)))
      .returning(),
    patchesIf(ctx, patches, stored),
    ...serviceCredentialEvent(ctx, target, stored),
    ...(graceful
      ? [retirementStatement(ctx.http, { ...old, credentialName: row.accessKeyId, retiresAt }, stored)]
      : retiredStatement(ctx.http, open)),
  ]);
  const [saved] = updated as BucketRow[];
  // Deleted meanwhile: its key user goes with the bucket's cleanups and the orphan sweep.
  if (!saved) {
    if (graceful) await s3.deleteKey(row.physicalName, key.accessKeyId).catch(() => undefined);
    throw new ApiError('NOT_FOUND', 'bucket not found');
  }
  await enqueueDeliveries(
    ctx,
    (recorded as { rows: Array<{ id: string }> }).rows.map((r) => r.id),
  );
  return showBucket(ctx.config, saved);
}
