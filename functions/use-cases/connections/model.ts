/** The shapes connection services share, and the connection object of the API. */
import { connectionKey, type Kind, type Level } from '../../domain/levels';
import { connectionEnvNames, type Engine, type Family, type NamedConnection } from '../../domain/variables';
import { type CredentialKindName, familyOf } from '../../kinds/registry';

export { connectionKey };

/** A service of the project as the connection routes see it. */
export interface ResourceInfo {
  kind: Kind;
  id: string;
  /** A database's or bucket's name; an auth app's app_id. */
  name: string;
  engine: Engine | null;
  family: Family;
  /** False for a disabled auth app: it cannot be connected and is never offered. */
  available: boolean;
  createdAt: Date;
}

/** A live service as the connection routes see it (every database and bucket is available). */
export const resourceOf = (
  kind: Kind,
  id: string,
  name: string,
  engine: Engine | null,
  createdAt: Date = new Date(),
): ResourceInfo => ({ kind, id, name, engine, family: familyOf(kind, engine), available: true, createdAt });

/** A stored connection with what the naming rules need of its service. */
export interface ConnectionInfo {
  id: string;
  projectId: string;
  siteId: string;
  siteSlug: string;
  kind: Kind;
  resourceId: string;
  resourceName: string;
  family: Family;
  level: Level;
  credentialMode: 'own' | 'shared' | 'none';
  credentialName: string | null;
  /**
   * The old credential of a graceful rotation not yet retired (docs/contract.md §14): still
   * valid, so a level change or a disconnect reaches it too.
   */
  retiringName?: string | null;
  /** Whether it holds its family's plain names (contract §9). */
  holdsPlain: boolean;
  createdAt: Date;
}

/** The API's connection object (its schema: routes/connection-schemas.ts). */
export interface ConnectionObject {
  site_id: string;
  site_slug: string;
  kind: Kind;
  resource_id: string;
  resource_name: string;
  level: string;
  env_names: string[];
  created_at: string;
}

/** The naming rules' view of a connection. */
export function named(
  c: Pick<
    ConnectionInfo,
    'kind' | 'resourceId' | 'family' | 'resourceName' | 'createdAt' | 'id' | 'holdsPlain'
  >,
): NamedConnection {
  return {
    key: connectionKey(c.kind, c.resourceId),
    family: c.family,
    name: c.resourceName,
    createdAt: c.createdAt.getTime(),
    id: c.id,
    holdsPlain: c.holdsPlain,
  };
}

/** The family of a resource row as the SQL helpers return it. */
export const resourceFamily = (kind: Kind, engine: Engine | null): Family => familyOf(kind, engine);

/** Groups connections by site. */
export function bySite<T extends { siteId: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.siteId);
    if (list) list.push(r);
    else out.set(r.siteId, [r]);
  }
  return out;
}

/**
 * Connection objects for connections of one or more sites. `siteConnections` must hold every
 * current connection of each site involved, since a connection's names depend on its siblings.
 */
export function toConnectionObjects(
  siteConnections: readonly ConnectionInfo[],
  include: (c: ConnectionInfo) => boolean = () => true,
): ConnectionObject[] {
  const out: ConnectionObject[] = [];
  for (const conns of bySite(siteConnections).values()) {
    const names = connectionEnvNames(conns.map(named));
    for (const c of conns) {
      if (!include(c)) continue;
      out.push({
        site_id: c.siteId,
        site_slug: c.siteSlug,
        kind: c.kind,
        resource_id: c.resourceId,
        resource_name: c.resourceName,
        level: c.level,
        env_names: names.get(connectionKey(c.kind, c.resourceId)) ?? [],
        created_at: c.createdAt.toISOString(),
      });
    }
  }
  return out.sort(
    (a, b) =>
      a.created_at.localeCompare(b.created_at) ||
      a.site_id.localeCompare(b.site_id) ||
      a.kind.localeCompare(b.kind) ||
      a.resource_id.localeCompare(b.resource_id),
  );
}

/** A credential cleanup a plan recorded: the credential to drop once the write has committed. */
export interface CleanupRef {
  id: string;
  kind: CredentialKindName;
  resourceId: string;
  credentialName: string;
}
