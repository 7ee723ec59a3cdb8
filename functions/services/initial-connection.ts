/**
 * The initial-connection rule (spec, States and transitions): a new service in a project with
 * exactly one site is connected to it at the default level; with several sites, to nothing.
 * An auth app's goes through the same plan as POST connect, inside the transaction that creates
 * it; a database's or bucket's is written with the service in one guarded batch (new-service-write.ts).
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { sites } from '../../db/schema';
import { levelOrDefault } from '../domain/levels';
import type { Config } from '../env';
import { writePlan } from './connections/locked-write';
import { type ResourceInfo, resourceOf } from './connections/model';
import { emptyPlan, type Plan } from './connections/plan';
import type { Prepared } from './connections/prepare';
import { readProjectConnections } from './connections/queries';

/** The plan connecting a new service to the project's only site, or null when it has not exactly one. */
async function initialPlan(db: DbOrTx, projectId: string, resource: ResourceInfo): Promise<Plan | null> {
  const projectSites = await db
    .select({ id: sites.id, slug: sites.slug })
    .from(sites)
    .where(eq(sites.projectId, projectId))
    .limit(2);
  const only = projectSites.length === 1 ? projectSites[0] : undefined;
  if (!only) return null;
  const before = await readProjectConnections(db, projectId, { siteId: only.id });
  const plan = emptyPlan(projectId, before);
  plan.adds.push({ siteId: only.id, siteSlug: only.slug, resource, grant: levelOrDefault(resource) });
  plan.rereadUnderLock = true;
  return plan;
}

/**
 * For an auth app (no credential) inside the transaction that creates it: connects it to the
 * project's only site and records the live patch. Returns the delivery ids the caller should
 * enqueue after commit (`enqueueDeliveries`); ones it does not enqueue go out with the reconciler.
 */
export async function connectNewService(
  tx: Tx,
  config: Config,
  projectId: string,
  kind: 'auth_app',
  resourceId: string,
  name: string,
): Promise<string[]> {
  const plan = await initialPlan(tx, projectId, resourceOf(kind, resourceId, name, null));
  if (!plan) return [];
  const prepared: Prepared = {
    plan,
    credentials: plan.adds.map(() => ({ mode: 'shared' as const })),
    rotated: new Map(),
    readers: [],
    undo: async () => undefined,
    unrotate: async () => new Map(),
  };
  const written = await writePlan(tx, config, prepared);
  return written.deliveryIds;
}
