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
import type { Config } from '../../config';
import { engineOf, engines, isEngine } from '../../kinds/registry';

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
  for (const engine of engines()) {
    for (const held of (await engine.heldCredentials(adapters)) ?? []) {
      if (named.database.has(held.name) || !old(held.createdAt, now)) continue;
      await held.drop();
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

/** Recreates own database logins (PostgreSQL roles, MongoDB users, ...) that went missing; returns how many. */
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
  // What each engine's system holds, listed once per engine that has such connections.
  // An engine whose system the deployment does not configure lists nothing: nothing to restore there.
  const held = new Map<string, Set<string> | null>();
  // A database of an engine this deployment does not register is left alone.
  for (const name of new Set(rows.map((r) => r.engine).filter(isEngine))) {
    const list = await engineOf(name).heldCredentials(adapters);
    held.set(name, list && new Set(list.map((h) => h.name)));
  }
  let restored = 0;
  for (const r of rows) {
    const names = held.get(r.engine);
    if (!r.name || !r.secret || !names || names.has(r.name)) continue;
    // Re-check just before acting: a disconnect since the first read must not bring its role back.
    if (!(await stillWanted(db, r.name))) continue;
    const level = r.level === 'read-only' ? 'read-only' : 'connect';
    const login = { user: r.name, secret: await config.keyring.decrypt(r.secret) };
    const target = { physicalName: r.physical, status: r.status };
    if (await engineOf(r.engine).restoreCredential({ config, adapters }, target, login, level)) restored++;
  }
  return restored;
}
