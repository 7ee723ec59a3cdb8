/**
 * Repairs drift between connections and the credentials that outside systems hold, a slice at a
 * time (sweep.ts decides the slices):
 * - orphans: a `c_` role, user or key user that no connection, named principal, pending cleanup or
 *   rotation or old secret still retiring names
 *   (a failed drop, a crash between making a credential and writing its row) is removed;
 * - missing: a connection whose own database login is gone gets it back with the same name,
 *   password and level, so the app notices nothing (a missing bucket key cannot come back;
 *   bucket-key-repair.ts replaces it).
 * Only credentials older than {@link ORPHAN_GRACE_MS} count as orphans, so a credential whose
 * connection row is still being written is never touched.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { connections, credentialCleanups } from '../../../db/schema';
import type { Engine } from '../../domain/variables';
import type { HeldCredential } from '../../kinds/database-engine';
import { type CredentialKindName, engineOf, isEngine } from '../../kinds/registry';
import type { JobContext } from '../../request-context';
import { connectionRepairEvent } from './repair-events';

/** How old an unnamed credential must be before it counts as an orphan. */
export const ORPHAN_GRACE_MS = 10 * 60_000;

/** Of `names`, those a connection, a live principal or a pending cleanup of `kind` still needs (by index). */
export async function namedAmong(
  db: DbOrTx,
  kind: CredentialKindName,
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
     where credential_name = any(${list}::text[]) and done_at is null and kind = ${kind}
    union select old_credential_name from connection_rotations
     where old_credential_name = any(${list}::text[]) and retired_at is null and kind = ${kind}
    union select credential_name from credential_retirements
     where credential_name = any(${list}::text[]) and retired_at is null and kind = ${kind}`);
  return new Set(rows.rows.map((r) => r.name));
}

/** Whether a credential made at `createdAt` is past the grace period. */
export const pastGrace = (createdAt: Date | null, now: number): boolean =>
  createdAt !== null && now - createdAt.getTime() > ORPHAN_GRACE_MS;

/** The held database credentials of `held` that nothing names and that are past grace. */
export async function orphansAmong(
  db: DbOrTx,
  held: readonly HeldCredential[],
  now = Date.now(),
): Promise<HeldCredential[]> {
  const named = await namedAmong(
    db,
    'database',
    held.map((h) => h.name),
  );
  return held.filter((h) => !named.has(h.name) && pastGrace(h.createdAt, now));
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

/** What the repairs of a connection's own login reach: its database's pool, the configuration, the outside systems. */
export type RepairContext = Pick<JobContext, 'db' | 'config' | 'adapters'>;

/** A connection's own database credential as the sweep reads it. */
export type OwnDatabaseCredential = {
  id: string;
  name: string | null;
  secret: string | null;
  level: string;
  engine: Engine;
  physical: string;
  status: 'running' | 'stopped';
};

/** Recreates one missing own login with its stored name, password and level, by its engine; true if it did. */
export async function restoreOne(ctx: RepairContext, r: OwnDatabaseCredential): Promise<boolean> {
  const { db, config, adapters } = ctx;
  // A database of an engine this deployment does not register is left alone.
  if (!r.name || !r.secret || !isEngine(r.engine)) return false;
  // Re-check just before acting: a disconnect since the first read must not bring its role back.
  if (!(await stillWanted(db, r.name))) return false;
  const level = r.level === 'read-only' ? 'read-only' : 'connect';
  const login = { user: r.name, secret: await config.keyring.decrypt(r.secret) };
  const target = { physicalName: r.physical, status: r.status };
  const restored = await engineOf(r.engine).restoreCredential({ config, adapters }, target, login, level);
  // Recorded in the project's Activity (by `system`) once the login is back.
  if (restored) await connectionRepairEvent(db, r.id, 'login restored');
  return restored;
}
