/**
 * What deleting a service does to its connections: the same as disconnecting it from every
 * site (test/integration/connections-transitions.test.ts pins it): one live patch per site (moved plain names included),
 * the managed key recomputed or revoked, own credentials queued for deletion. The deletion
 * reads the sites holding the service with its caller (one round trip) and writes the removal
 * with the service's own row in one guarded batch (versioned-write.ts).
 */

import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../../db/client';
import type { Config } from '../../config';
import type { Kind } from '../../domain/levels';
import { isUuid } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { type ActivitySource, activityQuery } from '../activity';
import { noConnectionLeftGuard } from './live-services';
import type { ConnectionInfo } from './model';
import { emptyPlan } from './plan';
import type { Prepared } from './prepare';
import { decodeProjectConnections, projectConnectionsStatement } from './queries';
import { retryOnConcurrentChange } from './retry';
import {
  type AroundPlan,
  type SiteStates,
  siteStatesFrom,
  siteStatesQuery,
  writeGuardedWith,
} from './versioned-write';
import type { Written } from './write';

/** What a deletion read of the sites holding the service: their states and every connection of theirs. */
export interface ServiceHolders {
  states: SiteStates;
  before: ConnectionInfo[];
}

/**
 * The reads a deletion of service `id` plans from, not yet sent (with the caller's lookup):
 * the states of the project's sites holding it (first, see siteStatesQuery), then every
 * connection of those sites. None when `id` is not a uuid (it names no service). `projectId`
 * is SQL for the project's id. Decode with {@link serviceHoldersFrom}.
 */
export function serviceHoldersQueries(db: HttpDb, projectId: SQL, kind: Kind, id: string): BatchQuery[] {
  if (!isUuid(id)) return [];
  const resourceId = id.toLowerCase();
  const holding = sql`select m.site_id from connections m
    where m.kind = ${kind} and m.resource_id = ${resourceId}::uuid`;
  return [
    siteStatesQuery(db, sql`s.project_id = ${projectId} and s.id in (${holding})`),
    db.execute(projectConnectionsStatement(projectId, { kind, resourceId })),
  ];
}

/** The answers of {@link serviceHoldersQueries} (none: no holder). */
export function serviceHoldersFrom(answers: readonly unknown[]): ServiceHolders {
  const [states, connections] = answers;
  return {
    states: states ? siteStatesFrom(states) : new Map(),
    before: connections ? decodeProjectConnections(connections as { rows: unknown[] }) : [],
  };
}

/** A deletion's read of the service (with the caller's lookup the first time): its row, what else it holds, the sites holding it. */
export interface ServiceRemovalRead<Row, Extra> {
  row: Row;
  extra: Extra;
  holders: ServiceHolders;
}

/** A kind's deletion of one service, read with its holders. */
export type RemoveService<Row, Extra> = (
  ctx: RequestContext,
  row: Row,
  holders: ServiceHolders,
  extra: Extra,
) => Promise<void>;

/** Deletes the service `read` names with its kind's `remove`, read again and retried when a concurrent write moved its holders first. */
export const removeService = <Row, Extra>(
  ctx: RequestContext,
  read: () => Promise<ServiceRemovalRead<Row, Extra>>,
  remove: RemoveService<Row, Extra>,
): Promise<void> =>
  retryOnConcurrentChange(ctx.db, async () => {
    const { row, extra, holders } = await read();
    await remove(ctx, row, holders, extra);
  });

/** A plan's preparation when nothing outside needs doing (the service's own row is what changes). */
function preparedOf(plan: ReturnType<typeof emptyPlan>): Prepared {
  return {
    plan,
    credentials: [],
    rotated: new Map(),
    readers: [],
    writers: [],
    undo: async () => undefined,
    unrotate: async () => new Map(),
    commitRotations: async () => undefined,
    rotation: { at: new Date(), graceSeconds: 0 },
  };
}

/**
 * Removes every connection to the service and runs `around` (the service's own row marked
 * deleted, with what goes with it) in one guarded batch; throws ConcurrentChange when a
 * holding site changed since it was read. Enqueue the result with `afterCommit`.
 */
export async function writeServiceRemoval(
  db: HttpDb,
  config: Config,
  service: { projectId: string; kind: Kind; id: string; name: string },
  holders: ServiceHolders,
  around: AroundPlan,
  by?: ActivitySource,
): Promise<{ written: Written; after: unknown[] }> {
  const plan = emptyPlan(service.projectId, holders.before);
  plan.activity = by;
  // The service's own event, with the batch; each connection it had records its `connection.delete`.
  const event = {
    action: `${service.kind}.delete`,
    target: { type: service.kind, id: service.id, name: service.name },
    projectId: service.projectId,
  };
  const before = by ? [...(around.before ?? []), activityQuery(db, by, event)] : around.before;
  plan.removes = holders.before.filter((c) => c.kind === service.kind && c.resourceId === service.id);
  // Last: a connection committed meanwhile from a site not read as a holder fails the batch.
  const after = [...(around.after ?? []), db.execute(noConnectionLeftGuard(service.kind, service.id))];
  // Nothing outside to undo: the service itself is being deleted.
  const out = await writeGuardedWith(db, config, preparedOf(plan), holders.states, { before, after });
  return { written: out.written, after: out.after.slice(0, -1) };
}

/**
 * A new secret of the service itself (an auth app's server key) reaching every site holding
 * it: `around` changes the service's row, and each holding site gets one live patch of the
 * service's names with reason `rotate`, in one guarded batch. Enqueue with `afterCommit`.
 */
export async function writeServiceRekey(
  db: HttpDb,
  config: Config,
  service: { projectId: string; kind: Kind; id: string },
  holders: ServiceHolders,
  around: AroundPlan,
): Promise<{ written: Written; after: unknown[] }> {
  const plan = emptyPlan(service.projectId, holders.before);
  plan.rotates = holders.before.filter((c) => c.kind === service.kind && c.resourceId === service.id);
  return writeGuardedWith(db, config, preparedOf(plan), holders.states, around);
}
