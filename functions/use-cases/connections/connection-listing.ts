/** The connection listings: a site's connections with what it could connect, and the project-wide list. */

import type { SQL } from 'drizzle-orm';
import type { HttpDb } from '../../../db/client';
import { type Kind, kindNames, levelsOf } from '../../domain/levels';
import { availableEnvNamesOf } from '../../domain/variables';
import {
  type ConnectionInfo,
  type ConnectionObject,
  connectionKey,
  named,
  toConnectionObjects,
} from './model';
import { type ConnectionFilter, decodeProjectConnections, projectConnectionsStatement } from './queries';
import type { SiteContext } from './site-access';

/** An entry of `available`. */
export interface AvailableEntry {
  kind: Kind;
  resource_id: string;
  resource_name: string;
  levels: string[];
  env_names: string[];
}

/** A site's connections and the services it could connect (deleted and disabled ones never offered). */
export function siteListing(ctx: SiteContext): {
  connections: ConnectionObject[];
  available: AvailableEntry[];
} {
  const connected = new Set(ctx.connections.map((c) => connectionKey(c.kind, c.resourceId)));
  const wouldAdd = availableEnvNamesOf(ctx.connections.map(named));
  const order = kindNames();
  const available = ctx.resources
    .filter((r) => r.available && !connected.has(connectionKey(r.kind, r.id)))
    .sort(
      (a, b) =>
        order.indexOf(a.kind) - order.indexOf(b.kind) ||
        a.createdAt.getTime() - b.createdAt.getTime() ||
        a.name.localeCompare(b.name),
    )
    .map((r) => ({
      kind: r.kind,
      resource_id: r.id,
      resource_name: r.name,
      levels: [...levelsOf(r.kind)],
      env_names: wouldAdd(r.family, r.name),
    }));
  return { connections: toConnectionObjects(ctx.connections), available };
}

/** The project's connections, narrowed by site, kind and resource. */
/** The project listing of `rows`, every connection of each site with one matching `filter`. */
export function projectListingOf(rows: ConnectionInfo[], filter: ConnectionFilter): ConnectionObject[] {
  const matches = (c: ConnectionInfo) =>
    (!filter.siteId || c.siteId === filter.siteId) &&
    (!filter.kind || c.kind === filter.kind) &&
    (!filter.resourceId || c.resourceId === filter.resourceId);
  return toConnectionObjects(rows, matches);
}

/** The query of a project listing sent with its caller's lookup; read its answer with {@link projectListingFrom}. */
export function projectListingQuery(db: HttpDb, projectId: SQL, filter: ConnectionFilter) {
  return db.execute(projectConnectionsStatement(projectId, filter));
}

/** The listing from the answer of {@link projectListingQuery}. */
export function projectListingFrom(
  answer: { rows: unknown[] },
  filter: ConnectionFilter,
): ConnectionObject[] {
  return projectListingOf(decodeProjectConnections(answer), filter);
}
