/**
 * What deleting a service does to its connections: the same as disconnecting it from every
 * site (spec, States and transitions): one live patch per site (moved plain names included),
 * the managed key recomputed or revoked, own credentials queued for deletion.
 */
import type { Tx } from '../../../db/client';
import type { Kind } from '../../domain/levels';
import type { Config } from '../../env';
import { writePlan } from './locked-write';
import { emptyPlan } from './plan';
import type { Prepared } from './prepare';
import { readProjectConnections } from './queries';
import type { Written } from './write';

/**
 * Removes every connection to the service inside `tx`, which must run before the service is
 * marked deleted; enqueue the result with `afterCommit` once `tx` commits.
 */
export async function removeServiceConnections(
  tx: Tx,
  config: Config,
  projectId: string,
  kind: Kind,
  resourceId: string,
): Promise<Written> {
  const before = await readProjectConnections(tx, projectId, { kind, resourceId });
  const plan = emptyPlan(projectId, before);
  plan.removes = before.filter((c) => c.kind === kind && c.resourceId === resourceId);
  // Nothing outside to undo: the service itself is being deleted.
  const prepared: Prepared = {
    plan,
    credentials: [],
    rotated: new Map(),
    readers: [],
    undo: async () => undefined,
    unrotate: async () => new Map(),
  };
  return writePlan(tx, config, prepared);
}
