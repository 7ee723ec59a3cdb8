/** The Activity events of a connection plan: one per connection it adds, re-levels, removes, rotates or promotes. */
import type { ActivityEvent } from '../activity';
import type { ConnectionInfo } from './model';
import type { Plan } from './plan';

/** A connection as an Activity target: its id, named `site → service`. */
const target = (c: Pick<ConnectionInfo, 'id' | 'siteSlug' | 'resourceName'>) => ({
  type: 'connection',
  id: c.id,
  name: `${c.siteSlug} → ${c.resourceName}`,
});

const about = (c: ConnectionInfo) => ({
  kind: c.kind,
  resource_id: c.resourceId,
  resource_name: c.resourceName,
  site_slug: c.siteSlug,
});

/** The events of `plan`, given the rows it inserted (in `plan.adds` order). */
export function connectionEvents(plan: Plan, inserted: readonly ConnectionInfo[]): ActivityEvent[] {
  const event = (action: string, c: ConnectionInfo, details: Record<string, string | boolean> = {}) => ({
    action,
    target: target(c),
    projectId: plan.projectId,
    siteId: c.siteId,
    details: { ...about(c), ...details },
  });
  return [
    ...inserted.map((c) => event('connection.create', c, { level: c.level })),
    ...plan.levels.map((l) =>
      event('connection.level', l.conn, { from: l.conn.level, level: l.grant.level }),
    ),
    ...plan.removes.map((c) => event('connection.delete', c, { level: c.level })),
    ...plan.rotates.map((c) => event('credential.rotate', c, { immediate: plan.immediate === true })),
    ...plan.promotes.map((c) => event('connection.promote', c)),
  ];
}
