/**
 * A PostgreSQL database's shared read-only login `r_<physical>`: what a read-only
 * connection made while the database is stopped is handed, instead of the main user (a member
 * of `<db>_rw`). It is made with the database; a database made before gets it when a read-only
 * app is first handed it. Once every app it was handed has its own credential (the database ran
 * again) or is gone, its password is changed, so the copy an app kept stops working.
 */

import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../../db/client';
import type { DatabaseRow } from '../../../db/rows';
import { connections, databases } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import { outside, setSecret } from '../../kinds/provisioner';
import { engineOf, engines } from '../../kinds/registry';
import { randomPassword } from '../../lib/ids';
import { log } from '../../lib/logger';

/** The engines whose databases have a shared read-only login. */
const readerEngines = () =>
  engines()
    .filter((e) => e.sharedReader)
    .map((e) => e.name);

/** The shared read-only login's name for a database. */
export const readerUserOf = (physicalName: string): string => `r_${physicalName}`;

/** What the shared read-only login needs. */
export interface ReaderDeps {
  db: Db;
  config: Config;
  adapters: Adapters;
}

/** Makes login `name` (read-only) with `password`, or gives an existing one that password. */
async function makeReader(
  config: Config,
  adapters: Adapters,
  db: DatabaseRow,
  name: string,
  password: string,
): Promise<void> {
  const engine = engineOf(db.engine);
  const login = { user: name, secret: password };
  // Left by an earlier attempt whose row was never written: it takes the password stored now.
  if (!(await engine.restoreCredential({ config, adapters }, db, login, 'read-only')))
    await setSecret(engine.provisioner(adapters), name, password);
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
  await makeReader(config, adapters, db, name, password);
  return { readerUser: name, readerPasswordCiphertext: await config.keyring.encrypt(password) };
}

/**
 * Before a read-only connection of a stopped PostgreSQL database made before the shared
 * read-only login is written with the shared credential: makes that login (the connection's own
 * write then marks it handed out, so it is rotated once no app needs it). The database's row is
 * held meanwhile, so two connects never make it twice. A failure at the cluster is 503 with
 * nothing changed.
 */
export async function handSharedReader(deps: ReaderDeps, db: DatabaseRow): Promise<void> {
  if (!engineOf(db.engine).sharedReader) return;
  await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(databases).where(eq(databases.id, db.id)).for('update');
    if (!row) return;
    if (row.readerUser) {
      await tx.update(databases).set({ readerHanded: true }).where(eq(databases.id, db.id));
      return;
    }
    const made = await outside('prepare the shared read-only login', () =>
      createSharedReader(deps.config, deps.adapters, row),
    );
    await tx
      .update(databases)
      .set({ ...made, readerHanded: true })
      .where(eq(databases.id, db.id));
  });
}

/** Whether read-only connections of the database `dbId` (an SQL expression) are still handed the shared credential. */
const sharedReadersLeft = (dbId: SQL) => sql`exists (
  select 1 from ${connections} c where c.resource_id = ${dbId} and c.kind = 'database'
    and c.credential_mode = 'shared' and c.level = 'read-only')`;

/**
 * Changes the password of every shared read-only login that was handed out and that no app
 * holds any more (each app moved to its own credential, or was disconnected); returns how many.
 * Each runs holding its database's row, re-checked under it, so a read-only connect made
 * meanwhile either waits and is handed the new password or is seen and keeps the old one.
 */
export async function rotateUnusedReaders(deps: ReaderDeps): Promise<number> {
  const candidates = await deps.db
    .select({ id: databases.id })
    .from(databases)
    .where(
      and(
        eq(databases.readerHanded, true),
        inArray(databases.engine, readerEngines()),
        isNull(databases.deletedAt),
        sql`not ${sharedReadersLeft(sql`${databases.id}`)}`,
      ),
    );
  let rotated = 0;
  for (const { id } of candidates) {
    try {
      const done = await deps.db.transaction(async (tx) => {
        const [row] = await tx.select().from(databases).where(eq(databases.id, id)).for('update');
        if (!row?.readerHanded || !row.readerUser) return false;
        const [left] = await rowsOf<{ left: boolean }>(
          tx,
          sql`select ${sharedReadersLeft(sql`${id}::uuid`)} as left`,
        );
        if (left?.left) return false;
        const password = randomPassword();
        await setSecret(engineOf(row.engine).provisioner(deps.adapters), row.readerUser, password);
        await tx
          .update(databases)
          .set({ readerPasswordCiphertext: await deps.config.keyring.encrypt(password), readerHanded: false })
          .where(eq(databases.id, id));
        return true;
      });
      if (done) rotated++;
    } catch (err) {
      log.error('rotating a shared read-only login failed; the reconciler retries:', err);
    }
  }
  return rotated;
}
