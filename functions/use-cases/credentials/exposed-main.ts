/**
 * The one-time new main password of a database whose main user may have reached an app:
 * before shared logins, a connection made while the database was stopped was handed the main
 * user (an admin secret, contract §7). The migration marks those databases; the reconciler first
 * moves their apps on the shared credential to the shared login of their level (live patch,
 * reason `credential`), then gives the main user a new password, so the copy an app kept stops
 * working. Apps still handed the main user (a standalone MongoDB's) get the new one by patch.
 */

import { asc, eq } from 'drizzle-orm';
import type { DatabaseRow } from '../../../db/rows';
import { connections, databases } from '../../../db/schema';
import type { DatabaseLevel } from '../../domain/levels';
import { setSecret } from '../../kinds/credential-provisioner';
import { engineOf } from '../../kinds/registry';
import { randomPassword } from '../../lib/ids';
import type { JobContext } from '../../request-context';
import { activityQuery, SYSTEM_SOURCE } from '../activity';
import { enqueueDeliveries } from '../delivery/deliveries';
import {
  effectiveEnvs,
  handSharedLogin,
  onSharedCredential,
  recordChangedEnvs,
  sharedUserOf,
} from './shared-reader';

/** Databases taken a tick: each costs a few cluster calls. */
const BATCH = 20;

/** The levels of the database's connections on the shared credential. */
async function sharedLevels(ctx: JobContext, id: string): Promise<DatabaseLevel[]> {
  const rows = await ctx.db
    .selectDistinct({ level: connections.level })
    .from(connections)
    .where(onSharedCredential(id));
  return rows.map((r) => r.level).filter((l): l is DatabaseLevel => l === 'read-only' || l === 'connect');
}

/** Gives one marked database's main user a new password, its apps patched, in one transaction. */
async function rotateMain(ctx: JobContext, id: string): Promise<string[]> {
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(databases).where(eq(databases.id, id)).for('update');
    if (!row?.mainExposed) return [];
    if (row.deletedAt) {
      await tx.update(databases).set({ mainExposed: false }).where(eq(databases.id, id));
      return [];
    }
    const holders = await tx
      .selectDistinct({ siteId: connections.siteId, projectId: connections.projectId })
      .from(connections)
      .where(onSharedCredential(id));
    const before = await effectiveEnvs(tx, ctx, holders);
    const password = randomPassword();
    await setSecret(engineOf(row.engine).provisioner(ctx.adapters), row.physicalName, row.mainUser, password);
    await tx
      .update(databases)
      .set({ mainPasswordCiphertext: await ctx.config.keyring.encrypt(password), mainExposed: false })
      .where(eq(databases.id, id));
    await activityQuery(tx, SYSTEM_SOURCE, {
      action: 'credential.rotate',
      target: { type: 'database', id: row.id, name: row.name },
      projectId: row.projectId,
      details: { reason: 'main user handed to an app before shared logins' },
    });
    return recordChangedEnvs(tx, ctx, holders, before);
  });
}

/**
 * Rotates the main password of up to {@link BATCH} databases marked `main_exposed`, oldest id
 * first; returns how many. Their apps on the shared credential first get the shared login of
 * their level (made if missing). A failure leaves the mark, so the next tick retries that one.
 */
export async function rotateExposedMainPasswords(ctx: JobContext): Promise<number> {
  const marked: DatabaseRow[] = await ctx.db
    .select()
    .from(databases)
    .where(eq(databases.mainExposed, true))
    .orderBy(asc(databases.id))
    .limit(BATCH);
  let rotated = 0;
  let failure: unknown = null;
  for (const row of marked) {
    try {
      if (!row.deletedAt)
        for (const level of await sharedLevels(ctx, row.id))
          if (!sharedUserOf(row, level)) await handSharedLogin(ctx, row, level);
      const ids = await rotateMain(ctx, row.id);
      await enqueueDeliveries(ctx, ids);
      rotated++;
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure) throw failure;
  return rotated;
}
