/** What deleting a site takes with it: its connections, their own credentials and its managed key. */
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { connections, credentialCleanups } from '../../db/schema';
import { newId } from '../lib/ids';
import type { CleanupRef } from './connections/write';

/**
 * Deletes the site's connections and records the removal of their own credentials; returns the
 * cleanups, for the caller to enqueue once the transaction has committed.
 */
export async function removeSiteConnections(tx: Tx, siteId: string): Promise<CleanupRef[]> {
  const removed = await tx.delete(connections).where(eq(connections.siteId, siteId)).returning({
    kind: connections.kind,
    resourceId: connections.resourceId,
    name: connections.credentialName,
  });
  const owned = removed.filter((r) => r.name && r.kind !== 'auth_app');
  if (owned.length === 0) return [];
  const rows = owned.map((r) => ({
    id: newId(),
    kind: r.kind as 'database' | 'bucket',
    resourceId: r.resourceId,
    credentialName: r.name as string,
  }));
  await tx.insert(credentialCleanups).values(rows);
  return rows;
}
