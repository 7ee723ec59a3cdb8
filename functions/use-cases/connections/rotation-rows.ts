/**
 * The rows a rotation writes beside its connection's new secret (docs/contract.md §14): the
 * connection's rotation (graceful: the old credential, the live patch carrying the new one and
 * the deadline; immediate: done at once), and for a disconnect the old credential's cleanup.
 */
import { sql } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../../db/client';
import { type CredentialKindName, hasCredential } from '../../kinds/registry';
import { newId } from '../../lib/ids';
import type { CleanupRef, ConnectionInfo } from './model';
import type { Prepared } from './prepare';

/** The upsert of each rotated connection's rotation, given the live patch recorded for each site. */
export function rotationRowStatements(
  db: Queryable,
  prepared: Prepared,
  deliveryOfSite: ReadonlyMap<string, string>,
): BatchQuery[] {
  const { at, graceSeconds } = prepared.rotation;
  const out: BatchQuery[] = [];
  for (const [id, cred] of prepared.rotated) {
    const conn = prepared.plan.rotates.find((r) => r.id === id);
    if (!conn) continue;
    const graceful = cred.retiring !== undefined;
    const retiresBy = graceful ? new Date(at.getTime() + graceSeconds * 1000) : at;
    out.push(
      db.execute(sql`
      insert into connection_rotations as r (connection_id, project_id, site_id, kind, resource_id,
        old_credential_name, delivery_id, immediate, started_at, live_at, retired_at, retires_by, old_sessions, last_error)
      values (${id}::uuid, ${prepared.plan.projectId}::uuid, ${conn.siteId}::uuid, ${conn.kind}, ${conn.resourceId}::uuid,
        ${cred.retiring ?? null}, ${deliveryOfSite.get(conn.siteId) ?? null}::uuid, ${!graceful},
        ${at.toISOString()}::timestamptz, null, ${graceful ? null : at.toISOString()}::timestamptz,
        ${retiresBy.toISOString()}::timestamptz, ${graceful ? null : 0}::int, null)
      on conflict (connection_id) do update set project_id = excluded.project_id, site_id = excluded.site_id,
        kind = excluded.kind, resource_id = excluded.resource_id, old_credential_name = excluded.old_credential_name,
        delivery_id = excluded.delivery_id, immediate = excluded.immediate, started_at = excluded.started_at,
        live_at = null, retired_at = excluded.retired_at, retires_by = excluded.retires_by,
        old_sessions = excluded.old_sessions, last_error = null`),
    );
  }
  return out;
}

/**
 * A disconnect takes both secrets of a connection still rotating: the old credential's cleanup
 * (dropped at once with the connection's own) and its rotation marked done, in the write.
 */
export function retiringRemovals(
  db: Queryable,
  removes: readonly ConnectionInfo[],
): { queries: BatchQuery[]; cleanups: CleanupRef[] } {
  const retiring = removes.filter((r) => r.retiringName && hasCredential(r.kind));
  if (retiring.length === 0) return { queries: [], cleanups: [] };
  const cleanups = retiring.map((r) => ({
    id: newId(),
    kind: r.kind as CredentialKindName,
    resourceId: r.resourceId,
    credentialName: r.retiringName as string,
  }));
  const ids = sql.join(
    retiring.map((r) => sql`${r.id}::uuid`),
    sql`, `,
  );
  return {
    cleanups,
    queries: [
      db.execute(sql`
      update connection_rotations set retired_at = now(), old_sessions = 0
       where connection_id in (${ids}) and retired_at is null`),
    ],
  };
}
