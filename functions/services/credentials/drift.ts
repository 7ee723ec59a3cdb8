/**
 * Repairs drift between connections and the credentials that outside systems hold:
 * - orphans: a `c_` role, user or key user that no connection, named principal or pending cleanup names
 *   (a failed drop, a crash between making a credential and writing its row) is removed;
 * - missing: a connection whose own PostgreSQL role or MongoDB user is gone gets it back with
 *   the same name, password and level, so the app notices nothing (a missing bucket key cannot
 *   come back; bucket-key-repair.ts replaces it).
 * Only credentials older than {@link ORPHAN_GRACE_MS} count as orphans, so a credential whose
 * connection row is still being written is never touched.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { connections, credentialCleanups, databases, principals } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import { pgCode } from '../../adapters/postgres-sql';
import type { Config } from '../../config';

/** How old an unnamed credential must be before it counts as an orphan. */
export const ORPHAN_GRACE_MS = 10 * 60_000;
const CONNECTION_NAME = /^c_[a-z0-9]{8}$/;

/** Every credential name some connection or pending cleanup still needs, per kind. */
async function namedCredentials(db: DbOrTx): Promise<{ database: Set<string>; bucket: Set<string> }> {
  const used = await db
    .select({ kind: connections.kind, name: connections.credentialName })
    .from(connections)
    .where(eq(connections.credentialMode, 'own'));
  const pending = await db
    .select({ kind: credentialCleanups.kind, name: credentialCleanups.credentialName })
    .from(credentialCleanups)
    .where(isNull(credentialCleanups.doneAt));
  // Named principals hold `c_` credentials too; a revoked one's is gone (or queued above).
  const held = await db
    .select({ kind: principals.kind, name: principals.credentialName })
    .from(principals)
    .where(isNull(principals.revokedAt));
  const out = { database: new Set<string>(), bucket: new Set<string>() };
  for (const r of [...used, ...pending, ...held]) {
    if (r.name && (r.kind === 'database' || r.kind === 'bucket')) out[r.kind].add(r.name);
  }
  return out;
}

const old = (createdAt: Date | null, now: number) =>
  createdAt !== null && now - createdAt.getTime() > ORPHAN_GRACE_MS;

/** Removes orphaned credentials; returns how many it removed. */
export async function removeOrphans(db: DbOrTx, adapters: Adapters, now = Date.now()): Promise<number> {
  const named = await namedCredentials(db);
  let removed = 0;
  for (const login of await adapters.postgres.listLogins()) {
    if (named.database.has(login.name) || !old(login.createdAt, now)) continue;
    const group = login.groups.find((g) => /_(rw|ro)$/.test(g));
    await adapters.postgres.dropLogin(group ? group.slice(0, -3) : '', login.name);
    removed++;
  }
  if (adapters.mongodb) {
    for (const user of await adapters.mongodb.listUsers()) {
      if (
        !CONNECTION_NAME.test(user.username) ||
        named.database.has(user.username) ||
        !old(user.createdAt, now)
      )
        continue;
      await adapters.mongodb.dropUser(user.username);
      removed++;
    }
  }
  if (adapters.s3) {
    for (const user of await adapters.s3.listKeyUsers()) {
      if (!CONNECTION_NAME.test(user.userName) || !old(user.createdAt, now)) continue;
      const keys = await adapters.s3.keysOf(user.userName);
      if (keys.some((k) => named.bucket.has(k))) continue;
      await adapters.s3.dropUser(user.userName);
      removed++;
    }
  }
  return removed;
}

/** Whether a connection still names the credential and no cleanup was ever recorded for it. */
async function stillWanted(db: DbOrTx, name: string): Promise<boolean> {
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

/** Recreates own PostgreSQL roles and MongoDB users that went missing; returns how many. */
export async function restoreMissing(db: DbOrTx, config: Config, adapters: Adapters): Promise<number> {
  const rows = await db
    .select({
      name: connections.credentialName,
      secret: connections.credentialSecretCiphertext,
      level: connections.level,
      engine: databases.engine,
      physical: databases.physicalName,
      status: databases.status,
    })
    .from(connections)
    .innerJoin(databases, and(eq(databases.id, connections.resourceId), isNull(databases.deletedAt)))
    .where(and(eq(connections.kind, 'database'), eq(connections.credentialMode, 'own')));
  if (rows.length === 0) return 0;
  const pgNames = new Set((await adapters.postgres.listLogins()).map((l) => l.name));
  const mongoNames =
    adapters.mongodb && rows.some((r) => r.engine === 'mongodb')
      ? new Set((await adapters.mongodb.listUsers()).map((u) => u.username))
      : null;
  let restored = 0;
  for (const r of rows) {
    if (!r.name || !r.secret) continue;
    if (pgNames.has(r.name) && r.engine === 'postgresql') continue;
    if (r.engine === 'mongodb' && (!mongoNames || mongoNames.has(r.name))) continue;
    // Re-check just before acting: a disconnect since the first read must not bring its role back.
    if (!(await stillWanted(db, r.name))) continue;
    const level = r.level === 'read-only' ? 'read-only' : 'connect';
    if (r.engine === 'postgresql' && !pgNames.has(r.name)) {
      const password = await config.keyring.decrypt(r.secret);
      try {
        await adapters.postgres.createLogin(r.physical, level, r.status === 'running', {
          name: r.name,
          password,
        });
        restored++;
      } catch (err) {
        // Made meanwhile by the connection's own path: nothing to restore.
        if (pgCode(err) !== '42710') throw err;
      }
    } else if (r.engine === 'mongodb' && mongoNames && !mongoNames.has(r.name) && adapters.mongodb) {
      await adapters.mongodb.createUser(r.physical, r.name, await config.keyring.decrypt(r.secret), level);
      restored++;
    }
  }
  return restored;
}
