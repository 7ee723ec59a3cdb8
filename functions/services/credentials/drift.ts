/**
 * Repairs drift between connections and the credentials that outside systems hold, a slice at a
 * time (sweep.ts decides the slices):
 * - orphans: a `c_` role, user or key user that no connection, named principal or pending cleanup names
 *   (a failed drop, a crash between making a credential and writing its row) is removed;
 * - missing: a connection whose own PostgreSQL role or MongoDB user is gone gets it back with
 *   the same name, password and level, so the app notices nothing (a missing bucket key cannot
 *   come back; bucket-key-repair.ts replaces it).
 * Only credentials older than {@link ORPHAN_GRACE_MS} count as orphans, so a credential whose
 * connection row is still being written is never touched.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { connections, credentialCleanups } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { PgLogin } from '../../adapters/postgres-admin-interface';
import { pgCode } from '../../adapters/postgres-sql';
import type { Config } from '../../env';

/** How old an unnamed credential must be before it counts as an orphan. */
export const ORPHAN_GRACE_MS = 10 * 60_000;
const CONNECTION_NAME = /^c_[a-z0-9]{8}$/;

/** Of `names`, those a connection, a live principal or a pending cleanup of `kind` still needs (by index). */
export async function namedAmong(
  db: DbOrTx,
  kind: 'database' | 'bucket',
  names: readonly string[],
): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const list = sql.param(names);
  const rows = await db.execute<{ name: string }>(sql`
    select credential_name as name from connections
     where credential_name = any(${list}::text[]) and credential_mode = 'own' and kind = ${kind}
    union select credential_name from principals
     where credential_name = any(${list}::text[]) and revoked_at is null and kind = ${kind}
    union select credential_name from credential_cleanups
     where credential_name = any(${list}::text[]) and done_at is null and kind = ${kind}`);
  return new Set(rows.rows.map((r) => r.name));
}

/** Whether a credential made at `createdAt` is past the grace period. */
export const pastGrace = (createdAt: Date | null, now: number): boolean =>
  createdAt !== null && now - createdAt.getTime() > ORPHAN_GRACE_MS;

/** The PostgreSQL logins of `logins` that nothing names and that are past grace. */
export async function orphanLogins(
  db: DbOrTx,
  logins: readonly PgLogin[],
  now = Date.now(),
): Promise<PgLogin[]> {
  const named = await namedAmong(
    db,
    'database',
    logins.map((l) => l.name),
  );
  return logins.filter((l) => !named.has(l.name) && pastGrace(l.createdAt, now));
}

/** Drops an orphaned login (from its database's groups, if it still has one). */
export async function dropOrphanLogin(adapters: Adapters, login: PgLogin): Promise<void> {
  const group = login.groups.find((g) => /_(rw|ro)$/.test(g));
  await adapters.postgres.dropLogin(group ? group.slice(0, -3) : '', login.name);
}

/**
 * Removes orphaned MongoDB users. Atlas holds at most 100 database users a project, so the
 * whole listing is a bounded read; returns how many it removed.
 */
export async function removeOrphanMongoUsers(
  db: DbOrTx,
  adapters: Adapters,
  now = Date.now(),
): Promise<number> {
  if (!adapters.mongodb) return 0;
  const users = (await adapters.mongodb.listUsers()).filter((u) => CONNECTION_NAME.test(u.username));
  const named = await namedAmong(
    db,
    'database',
    users.map((u) => u.username),
  );
  let removed = 0;
  for (const user of users) {
    if (named.has(user.username) || !pastGrace(user.createdAt, now)) continue;
    await adapters.mongodb.dropUser(user.username);
    removed++;
  }
  return removed;
}

/** Whether a connection still names the credential and no cleanup was ever recorded for it. */
export async function stillWanted(db: DbOrTx, name: string): Promise<boolean> {
  const [conn] = await db
    .select({ id: connections.id })
    .from(connections)
    .where(and(eq(connections.credentialName, name), eq(connections.credentialMode, 'own')));
  if (!conn) return false;
  const [cleanup] = await db
    .select({ id: credentialCleanups.id })
    .from(credentialCleanups)
    .where(eq(credentialCleanups.credentialName, name));
  return !cleanup;
}

/** A connection's own database credential as the sweep reads it. */
export type OwnDatabaseCredential = {
  id: string;
  name: string | null;
  secret: string | null;
  level: string;
  engine: 'postgresql' | 'mongodb';
  physical: string;
  status: string;
};

/** Recreates one missing own login or user with its stored name, password and level; true if it did. */
export async function restoreOne(
  db: DbOrTx,
  config: Config,
  adapters: Adapters,
  r: OwnDatabaseCredential,
): Promise<boolean> {
  if (!r.name || !r.secret) return false;
  // Re-check just before acting: a disconnect since the first read must not bring its role back.
  if (!(await stillWanted(db, r.name))) return false;
  const level = r.level === 'read-only' ? 'read-only' : 'connect';
  const password = await config.keyring.decrypt(r.secret);
  if (r.engine === 'mongodb') {
    if (!adapters.mongodb) return false;
    await adapters.mongodb.createUser(r.physical, r.name, password, level);
    return true;
  }
  try {
    await adapters.postgres.createLogin(r.physical, level, r.status === 'running', {
      name: r.name,
      password,
    });
    return true;
  } catch (err) {
    // Made meanwhile by the connection's own path: nothing to restore.
    if (pgCode(err) !== '42710') throw err;
    return false;
  }
}
