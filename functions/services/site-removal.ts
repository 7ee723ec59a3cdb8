/** What deleting a site takes with it: its connections, their own credentials and its managed key. */
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { connections, credentialCleanups } from '../../db/schema';
import { newId } from '../lib/ids';

/** Deletes the site's connections and queues the removal of their own credentials. */
export async function removeSiteConnections(tx: Tx, siteId: string): Promise<void> {
  const removed = await tx.delete(connections).where(eq(connections.siteId, siteId)).returning({
    kind: connections.kind,
    resourceId: connections.resourceId,
    name: connections.credentialName,
  });
  const owned = removed.filter((r) => r.name && r.kind !== 'auth_app');
  if (owned.length > 0) {
    await tx.insert(credentialCleanups).values(
      owned.map((r) => ({
        id: newId(),
        kind: r.kind as 'database' | 'bucket',
        resourceId: r.resourceId,
        credentialName: r.name as string,
      })),
    );
  }
}
