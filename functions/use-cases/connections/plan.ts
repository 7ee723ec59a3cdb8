/**
 * A change to connections, as one plan: what to add, re-level, remove and re-secret. Every
 * route that changes connections (POST, PUT, DELETE, rotate, the per-service routes, the
 * initial connection of a new service) builds a plan and hands it to `applyPlan`.
 */
import type { BatchQuery, HttpDb, Queryable } from '../../../db/client';
import type { Kind, KindLevel } from '../../domain/levels';
import type { PatchReason } from '../../domain/patch-reasons';
import { type NamedConnection, patchNames } from '../../domain/variables';
import {
  CREDENTIAL_KIND_NAMES,
  credentialsOf,
  hasCredential,
  targetRowsQueries,
  targetsFrom,
} from '../../kinds/registry';
import { isUuid } from '../../lib/ids';
import type { ActivitySource } from '../activity';
import type { CredentialTarget } from '../credentials/connection-credential';
import { type ConnectionInfo, connectionKey, named, type ResourceInfo } from './model';

/** A new connection. */
export interface AddItem {
  siteId: string;
  siteSlug: string;
  resource: ResourceInfo;
  /** The level, of the resource's kind. */
  grant: KindLevel;
}

/** A level change of an existing connection. */
export interface LevelItem {
  conn: ConnectionInfo;
  /** The new level, of the connection's kind. */
  grant: KindLevel;
}

/** What to change. `before` holds every current connection of each site the plan touches. */
export interface Plan {
  projectId: string;
  before: ConnectionInfo[];
  adds: AddItem[];
  levels: LevelItem[];
  removes: ConnectionInfo[];
  rotates: ConnectionInfo[];
  /**
   * Rotates that refuse the old secret at once (`?immediate=true`, a leak): the same login, a new
   * secret. Otherwise a rotate is graceful where the kind allows (docs/contract.md §14).
   */
  immediate?: boolean;
  /**
   * A graceful rotate's `?grace_seconds=N`: the old secret retires at the latest N seconds after
   * it started (absent: ROTATION_GRACE_SECONDS).
   */
  graceSeconds?: number;
  /** Connections that take their family's plain names from whichever sibling holds them. */
  promotes: ConnectionInfo[];
  /**
   * Set when the plan only adds services created by this very request, which no other request
   * can have connected: the write then re-reads `before` under the site's lock instead of
   * refusing a site whose other connections changed meanwhile.
   */
  rereadUnderLock?: boolean;
  /** Who the plan's changes are recorded as in the Activity record (with the write itself). */
  activity?: ActivitySource;
}

/** A plan that changes nothing. */
export const emptyPlan = (projectId: string, before: ConnectionInfo[]): Plan => ({
  projectId,
  before,
  adds: [],
  levels: [],
  removes: [],
  rotates: [],
  promotes: [],
});

/** Whether the plan changes anything. */
export const isNoop = (p: Plan): boolean =>
  p.adds.length + p.levels.length + p.removes.length + p.rotates.length + p.promotes.length === 0;

/** The sites a plan changes. */
export function affectedSites(p: Plan): string[] {
  return [
    ...new Set([
      ...p.adds.map((a) => a.siteId),
      ...p.levels.map((l) => l.conn.siteId),
      ...p.removes.map((r) => r.siteId),
      ...p.rotates.map((r) => r.siteId),
      ...p.promotes.map((r) => r.siteId),
    ]),
  ];
}

export { hasCredential };

/** Loads the rows credential work needs (of the kinds whose connections hold credentials), keyed by id. */
export async function loadTargets(db: Queryable, refs: Array<{ kind: Kind; id: string }>) {
  const answers = await Promise.all(
    CREDENTIAL_KIND_NAMES.map((kind) => {
      const ids = [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))];
      return ids.length ? credentialsOf(kind).rowsQuery(db, ids) : [];
    }),
  );
  return targetsFrom(answers);
}

/**
 * The reads of the database and bucket rows `ids` may name (any that is not a uuid names none),
 * not yet sent, so a write sends them with its other reads; none when no id can name one.
 * Decode the answers with {@link targetsOf}.
 */
export function targetQueries(db: HttpDb, ids: readonly string[]): BatchQuery[] {
  const uuids = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  if (uuids.length === 0) return [];
  return targetRowsQueries(db, uuids);
}

/** The rows {@link targetQueries} read, keyed by id (`answers` as the batch returned them). */
export function targetsOf(answers: readonly unknown[]): Map<string, CredentialTarget> {
  return targetsFrom(answers);
}

/** The reason a site's patch gives, from the strongest change it saw. */
export function reasonFor(p: Plan, siteId: string): PatchReason {
  if (p.adds.some((a) => a.siteId === siteId)) return 'connect';
  if (p.removes.some((r) => r.siteId === siteId)) return 'disconnect';
  if (p.levels.some((l) => l.conn.siteId === siteId)) return 'level';
  if (p.rotates.some((r) => r.siteId === siteId)) return 'rotate';
  if (p.promotes.some((r) => r.siteId === siteId)) return 'promote';
  return 'key';
}

/** The connections of `siteId` after the plan, given the rows the plan inserted. */
export function afterOf(p: Plan, siteId: string, inserted: readonly ConnectionInfo[]): ConnectionInfo[] {
  const removed = new Set(p.removes.map((r) => r.id));
  const levels = new Map(p.levels.map((l) => [l.conn.id, l.grant.level]));
  const promoted = p.promotes.filter((c) => c.siteId === siteId);
  const holds = (c: ConnectionInfo): boolean => {
    const winner = promoted.find((w) => w.family === c.family);
    return winner ? winner.id === c.id : c.holdsPlain;
  };
  return [
    ...p.before
      .filter((c) => c.siteId === siteId && !removed.has(c.id))
      .map((c) => ({ ...c, level: levels.get(c.id) ?? c.level, holdsPlain: holds(c) })),
    ...inserted.filter((c) => c.siteId === siteId),
  ];
}

/**
 * Whether each new connection of the plan takes its family's plain names: the first made while
 * none holds them (contract §9), in plan order.
 */
export function addsHoldingPlain(p: Plan): boolean[] {
  const held = new Map<string, Set<string>>();
  for (const siteId of new Set(p.adds.map((a) => a.siteId))) {
    const families = afterOf(p, siteId, [])
      .filter((c) => c.holdsPlain)
      .map((c) => c.family);
    held.set(siteId, new Set(families));
  }
  return p.adds.map((a) => {
    const families = held.get(a.siteId) as Set<string>;
    if (families.has(a.resource.family)) return false;
    families.add(a.resource.family);
    return true;
  });
}

/** The names a site's patch sets and unsets for this plan. */
export function sitePatchNames(
  p: Plan,
  siteId: string,
  inserted: readonly ConnectionInfo[],
): { set: string[]; unset: string[] } {
  const before: NamedConnection[] = p.before.filter((c) => c.siteId === siteId).map(named);
  const after: NamedConnection[] = afterOf(p, siteId, inserted).map(named);
  const touched = new Set([
    ...p.levels
      .filter((l) => l.conn.siteId === siteId)
      .map((l) => connectionKey(l.conn.kind, l.conn.resourceId)),
    ...p.rotates.filter((r) => r.siteId === siteId).map((r) => connectionKey(r.kind, r.resourceId)),
    ...p.promotes.filter((r) => r.siteId === siteId).map((r) => connectionKey(r.kind, r.resourceId)),
  ]);
  return patchNames(before, after, touched);
}
