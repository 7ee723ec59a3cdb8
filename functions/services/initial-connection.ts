/** The initial-connection rule: a new service in a project with exactly one site is connected to it. */
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { connections, sites } from '../../db/schema';
import { defaultLevel, type Kind } from '../domain/levels';
import { newId } from '../lib/ids';

/** Connects a just-created service to the project's only site, if it has exactly one; returns that site's id. */
export async function connectNewService(
  tx: Tx,
  projectId: string,
  kind: Kind,
  resourceId: string,
): Promise<string | null> {
  const projectSites = await tx
    .select({ id: sites.id })
    .from(sites)
    .where(eq(sites.projectId, projectId))
    .limit(2);
  const only = projectSites.length === 1 ? projectSites[0] : undefined;
  if (!only) return null;
  await tx.insert(connections).values({
    id: newId(),
    projectId,
    siteId: only.id,
    kind,
    resourceId,
    level: defaultLevel(kind),
    credentialMode: 'shared',
  });
  return only.id;
}
