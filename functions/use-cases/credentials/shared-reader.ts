/**
 * A database's shared logins, one a level: read-only `r_<physical>` and connect
 * `w_<physical>`. A connection made while the database is stopped is handed the one of its
 * level, never the main user (an admin secret, contract §7). PostgreSQL makes the read-only one
 * with the database; any other is made when an app is first handed it. Once every app it was
 * handed has its own credential (the database ran again) or is gone, its password is changed, so
 * the copy an app kept stops working. A standalone MongoDB keeps handing its one shared user.
 */

import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../../db/client';
import type { DatabaseRow } from '../../../db/rows';
import { connections, databases } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import type { DatabaseLevel } from '../../domain/levels';
import { outside, setSecret } from '../../kinds/credential-provisioner';
import { engineOf } from '../../kinds/registry';
import { randomPassword } from '../../lib/ids';
import type { JobContext } from '../../request-context';
import { enqueueDeliveries, type PatchRecord, recordPatches } from '../delivery/deliveries';
import { deriveSiteEnv } from '../site-env/derive';

/** Where each level's shared login lives in a database's row, and its name's prefix. */
const SLOTS = {
  'read-only': {
    prefix: 'r_',
    user: 'readerUser',
    cipher: 'readerPasswordCiphertext',
    handed: 'readerHanded',
  },
  connect: { prefix: 'w_', user: 'writerUser', cipher: 'writerPasswordCiphertext', handed: 'writerHanded' },
} as const satisfies Record<DatabaseLevel, { prefix: string; user: string; cipher: string; handed: string }>;

/** The shared read-only login's name for a database. */
export const readerUserOf = (physicalName: string): string => `${SLOTS['read-only'].prefix}${physicalName}`;

/** The shared login of `level`'s name for a database. */
export const sharedLoginOf = (level: DatabaseLevel, physicalName: string): string =>
  `${SLOTS[level].prefix}${physicalName}`;

/** The database's shared login of `level`, if made. */
export const sharedUserOf = (row: DatabaseRow, level: DatabaseLevel): string | null => row[SLOTS[level].user];

/** Makes login `name` at `level` with `password`, or gives an existing one that password. */
async function makeLogin(
  config: Config,
  adapters: Adapters,
  db: DatabaseRow,
  name: string,
  password: string,
  level: DatabaseLevel,
): Promise<void> {
  const engine = engineOf(db.engine);
  const login = { user: name, secret: password };
  // Left by an earlier attempt whose row was never written: it takes the password stored now.
  if (!(await engine.restoreCredential({ config, adapters }, db, login, level)))
    await setSecret(engine.provisioner(adapters), db.physicalName, name, password);
}

/**
 * Makes the database's shared read-only login at its creation; returns the columns to store.
 * Throws (the caller undoes the database) when the cluster refuses.
 */
export async function createSharedReader(
  config: Config,
  adapters: Adapters,
  db: DatabaseRow,
): Promise<Pick<DatabaseRow, 'readerUser' | 'readerPasswordCiphertext'>> {
  const name = readerUserOf(db.physicalName);
  const password = randomPassword();
  await makeLogin(config, adapters, db, name, password, 'read-only');
  return { readerUser: name, readerPasswordCiphertext: await config.keyring.encrypt(password) };
}

/** Where a connection is to database `id` and served by its shared credential. */
export const onSharedCredential = (id: string) =>
  and(
    eq(connections.resourceId, id),
    eq(connections.kind, 'database'),
    sql`${connections.credentialMode} = 'shared'`,
  );

/** The sites with a connection to database `id` at `level` served by the shared credential. */
async function sharedHolders(tx: DbOrTx, id: string, level: DatabaseLevel) {
  return tx
    .selectDistinct({ siteId: connections.siteId, projectId: connections.projectId })
    .from(connections)
    .where(and(onSharedCredential(id), eq(connections.level, level)));
}

/**
 * Before a connection of a stopped database at `level` is written with the shared credential:
 * makes the level's shared login if the database has none yet (the connection's own write then
 * marks it handed, so it is rotated once no app needs it). Apps already on the shared
 * credential at that level (from before this login existed) move to it by live patch, reason
 * `credential`. The database's row is held meanwhile, so two connects never make it twice. A
 * failure at the cluster is 503 with nothing changed. A standalone MongoDB has no such logins.
 * Returns whether the database has the login now.
 */
export async function handSharedLogin(
  ctx: JobContext,
  db: DatabaseRow,
  level: DatabaseLevel,
): Promise<boolean> {
  const engine = engineOf(db.engine);
  if (engine.sharedOnly(db) !== null) return false;
  const slot = SLOTS[level];
  const patches = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(databases).where(eq(databases.id, db.id)).for('update');
    if (!row) return null;
    if (row[slot.user]) {
      await tx
        .update(databases)
        .set({ [slot.handed]: true })
        .where(eq(databases.id, db.id));
      return [];
    }
    const holders = await sharedHolders(tx, db.id, level);
    const before = await effectiveEnvs(tx, ctx, holders);
    const name = sharedLoginOf(level, row.physicalName);
    const password = randomPassword();
    await outside('prepare the shared login', () =>
      makeLogin(ctx.config, ctx.adapters, row, name, password, level),
    );
    await tx
      .update(databases)
      .set({
        [slot.user]: name,
        [slot.cipher]: await ctx.config.keyring.encrypt(password),
        [slot.handed]: true,
      })
      .where(eq(databases.id, db.id));
    return recordChangedEnvs(tx, ctx, holders, before);
  });
  if (patches) await enqueueDeliveries(ctx, patches);
  return patches !== null;
}

/** Whether connections of the database `dbId` (an SQL expression) at `level` are still handed the shared credential. */
const sharedLeft = (dbId: SQL, level: DatabaseLevel) => sql`exists (
  select 1 from ${connections} c where c.resource_id = ${dbId} and c.kind = 'database'
    and c.credential_mode = 'shared' and c.level = ${level})`;

/**
 * Changes the password of every shared login that was handed out and that no app holds any
 * more (each app moved to its own credential, or was disconnected); returns how many. Each runs
 * holding its database's row, re-checked under it, so a connect made meanwhile either waits and
 * is handed the new password or is seen and keeps the old one.
 */
export async function rotateUnusedReaders(ctx: JobContext): Promise<number> {
  let rotated = 0;
  for (const level of Object.keys(SLOTS) as DatabaseLevel[]) {
    const slot = SLOTS[level];
    const candidates = await ctx.db
      .select({ id: databases.id })
      .from(databases)
      .where(
        and(
          eq(databases[slot.handed], true),
          isNull(databases.deletedAt),
          sql`not ${sharedLeft(sql`${databases.id}`, level)}`,
        ),
      );
    for (const { id } of candidates) {
      try {
        if (await rotateOne(ctx, id, level)) rotated++;
      } catch (err) {
        ctx.log.error('rotating a shared login failed; the reconciler retries:', err);
      }
    }
  }
  return rotated;
}

async function rotateOne(ctx: JobContext, id: string, level: DatabaseLevel): Promise<boolean> {
  const slot = SLOTS[level];
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(databases).where(eq(databases.id, id)).for('update');
    const user = row?.[slot.user];
    if (!row?.[slot.handed] || !user) return false;
    const [left] = await rowsOf<{ left: boolean }>(
      tx,
      sql`select ${sharedLeft(sql`${id}::uuid`, level)} as left`,
    );
    if (left?.left) return false;
    const password = randomPassword();
    await setSecret(engineOf(row.engine).provisioner(ctx.adapters), row.physicalName, user, password);
    await tx
      .update(databases)
      .set({ [slot.cipher]: await ctx.config.keyring.encrypt(password), [slot.handed]: false })
      .where(eq(databases.id, id));
    return true;
  });
}

/** A site holding a shared login, and its project. */
type Holder = { siteId: string; projectId: string };

/** Each holder's effective variables now, to compare after a credential change. */
export async function effectiveEnvs(
  tx: DbOrTx,
  ctx: JobContext,
  holders: Holder[],
): Promise<Map<string, Record<string, string>>> {
  const envs = new Map<string, Record<string, string>>();
  for (const h of holders)
    envs.set(h.siteId, (await deriveSiteEnv(tx, ctx.config, ctx.adapters, h.siteId))?.effective ?? {});
  return envs;
}

/** Records a credential patch for each holder whose effective variables changed since `before`. */
export async function recordChangedEnvs(
  tx: DbOrTx,
  ctx: JobContext,
  holders: Holder[],
  before: Map<string, Record<string, string>>,
) {
  const after = await effectiveEnvs(tx, ctx, holders);
  const records: PatchRecord[] = [];
  for (const h of holders) {
    const was = before.get(h.siteId) ?? {};
    const now = after.get(h.siteId) ?? {};
    const set = Object.keys(now).filter((n) => was[n] !== now[n]);
    if (set.length > 0)
      records.push({
        projectId: h.projectId,
        siteId: h.siteId,
        reason: 'credential',
        set: set.sort(),
        unset: [],
      });
  }
  return recordPatches(tx, records);
}
