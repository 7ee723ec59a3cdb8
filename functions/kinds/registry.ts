/**
 * The one registry of service kinds (database, bucket, auth app) and, through engines.ts, of
 * database engines. Generic code asks it for a kind's descriptor and loops over `serviceKinds()`;
 * it never branches on a kind's or an engine's name. It also merges the outside systems they
 * bring (outside-system.ts) into the one configuration (`loadConfig`) and the one adapters bag
 * (`buildAdapters`).
 */
import type { BatchQuery, Queryable } from '../../db/client';
import type { DatabaseRow } from '../../db/rows';
import type { Adapters } from '../adapters';
import { type Bindings, type Config, mergeConfig } from '../config';
import { type DatabaseLevel, type Kind, type KindLevel, registerKindLevels } from '../domain/levels';
import { type Engine, type Family, registerFamily } from '../domain/variables';
import { authApp } from './auth-app';
import { bucket } from './bucket';
import { database } from './database';
import type { EngineContext } from './database-engine';
import { engines } from './engines';
import type { AdapterOptions, OutsideSystem } from './outside-system';
import type {
  CredentialKind,
  CredentialKindName,
  CredentialTarget,
  DerivationRow,
  PluginKind,
  ServiceKind,
  ShownSecret,
} from './service-kind';
import { serviceText } from './service-kind';

export { engineNames, engineOf, engines, isEngine, registerEngine } from './engines';
export type {
  ColumnValue,
  CredentialKindName,
  CredentialTarget,
  PluginKind,
  ServiceKind,
} from './service-kind';

/** Every kind, built-in ones first, then those registered with {@link registerKind}, by name. */
const SERVICE_KINDS = new Map<string, ServiceKind>([
  ['database', database],
  ['bucket', bucket],
  ['auth_app', authApp],
] as [string, ServiceKind][]);
const CREDENTIAL_KINDS: { [K in CredentialKindName]: CredentialKind<K> } = {
  database: database.credentials,
  bucket: bucket.credentials,
};

for (const kind of SERVICE_KINDS.values()) for (const family of kind.families) registerFamily(family);

/**
 * Registers the kind a plugin brings: its levels, its variable families, its outside system (its
 * config slice and adapter, merged by {@link loadConfig} and {@link buildAdapters}), and the
 * descriptor generic code reads. Returns the function that removes it again (a test's plugin).
 */
export function registerKind(plugin: PluginKind): () => void {
  checkDescriptor(plugin);
  const levels = plugin.levels.map(({ level }) => level);
  const undo = [registerKindLevels(plugin.name, levels, plugin.defaultLevel)];
  const undoAll = () => {
    for (const u of undo.reverse()) u();
  };
  try {
    for (const family of plugin.families) undo.push(registerFamily(family));
  } catch (err) {
    undoAll();
    throw err;
  }
  SERVICE_KINDS.set(plugin.name, plugin as unknown as ServiceKind);
  let removed = false;
  return () => {
    // Once: a second call must not remove a kind registered again under the name since.
    if (removed) return;
    removed = true;
    SERVICE_KINDS.delete(plugin.name);
    undoAll();
  };
}

/** A name its statements may carry unquoted: a table's or column's. */
export const isSqlIdentifier = (name: string): boolean => /^[a-z_][a-z0-9_]*$/.test(name);

/**
 * The segments of a project's own routes under `/api/v1/projects/{id}/` besides its kinds'
 * (test/unit/route-table.test.ts keeps this list and the route table in step): no kind's plural
 * may take one.
 */
export const PROJECT_ROUTE_SEGMENTS = [
  'activity',
  'api-keys',
  'connections',
  'health',
  'invitations',
  'members',
  'sites',
] as const;

/**
 * Refuses a descriptor its routes and statements could not carry: a name or plural no path can
 * hold, a plural whose segment a project's routes or another kind already have, a table or
 * column that is not a plain identifier.
 */
function checkDescriptor(plugin: PluginKind): void {
  if (SERVICE_KINDS.has(plugin.name)) throw new Error(`kind ${plugin.name} is already registered`);
  // Its name is a path segment of the connection routes, its plural (hyphenated) of its services'.
  if (!/^[a-z][a-z_]*$/.test(plugin.name) || !/^[a-z]+( [a-z]+)*$/.test(plugin.plural))
    throw new Error(
      `kind ${plugin.name}: its name takes a-z and _, its plural words of a-z between single spaces`,
    );
  const segment = plugin.plural.replaceAll(' ', '-');
  const taken = [...PROJECT_ROUTE_SEGMENTS, ...serviceKinds().map((k) => kindSegment(k.name))];
  if (taken.includes(segment)) throw new Error(`kind ${plugin.name}: the path segment ${segment} is taken`);
  const identifiers = [
    plugin.table,
    plugin.nameColumn,
    ...(plugin.enabledColumn === null ? [] : [plugin.enabledColumn]),
    ...plugin.derivedFrom,
    ...plugin.shown,
  ];
  const bad = identifiers.filter((name) => !isSqlIdentifier(name));
  if (bad.length > 0)
    throw new Error(
      `kind ${plugin.name}: ${bad.map((b) => JSON.stringify(b)).join(', ')} is no table or column name`,
    );
}

// A kind a plugin folder brings is registered here, one line each: `registerKind(cache);`.

/** The outside systems of every registered engine, then of every kind, each once. */
export function outsideSystems(): OutsideSystem[] {
  const all = [...engines().map((e) => e.system), ...serviceKinds().map((k) => k.system)];
  return [...new Set(all.filter((s): s is OutsideSystem => s !== undefined))];
}

/**
 * The Worker's configuration: the core variables (config.ts) and every registered system's own,
 * checked once per isolate; throws an EnvironmentError naming each one at fault.
 */
export const loadConfig = (env: Bindings): Config => mergeConfig(env, outsideSystems());

/** Every registered system's adapter for `config`, keyed by the system's name. */
export const buildAdapters = (config: Config, options: AdapterOptions = {}): Adapters =>
  new Map(outsideSystems().map((s) => [s.name, s.build(s.settings(config), config, options)]));

/** The descriptor of kind `kind`. */
export const kindOf = <K extends Kind>(kind: K): ServiceKind<K> => {
  const found = SERVICE_KINDS.get(kind);
  if (!found) throw new Error(`no kind ${kind} is registered`);
  return found as unknown as ServiceKind<K>;
};

/** The path segment naming kind `kind`'s services in the API and the console: its plural, hyphenated. */
export const kindSegment = (kind: Kind): string => kindOf(kind).plural.replaceAll(' ', '-');

/** The key a listing of kind `kind`'s services is answered under: its plural, with underscores. */
export const kindListKey = (kind: Kind): string => kindOf(kind).plural.replaceAll(' ', '_');

/** Whether kind `kind` is one a plugin registered (its descriptor brings its services' creation). */
export const isPluginKind = (kind: Kind): boolean => 'creation' in kindOf(kind);

/** The kinds plugins registered, in registration order. */
export const pluginKinds = (): PluginKind[] =>
  serviceKinds().filter((k) => isPluginKind(k.name)) as unknown as PluginKind[];

/** The kind whose services' path segment is `segment`, if any. */
export const kindOfSegment = (segment: string): Kind | undefined =>
  serviceKinds().find((k) => kindSegment(k.name) === segment)?.name;

/** Every kind's descriptor. */
export const serviceKinds = (): ServiceKind[] => [...SERVICE_KINDS.values()];

/** The kinds whose connections hold a credential of their own, in a fixed order. */
export const CREDENTIAL_KIND_NAMES = Object.keys(CREDENTIAL_KINDS) as CredentialKindName[];

/** Whether kind `kind`'s connections hold a credential of their own (an auth app's hold none). */
export const hasCredential = (kind: Kind): kind is CredentialKindName => kind in CREDENTIAL_KINDS;

/** Whether the level's kind holds a credential of its own. */
export const isCredentialLevel = (l: KindLevel): l is KindLevel<CredentialKindName> => hasCredential(l.kind);

/** How kind `kind`'s connections hold their credentials. */
export const credentialsOf = <K extends CredentialKindName>(kind: K): CredentialKind<K> =>
  CREDENTIAL_KINDS[kind];

/** A service's variable family: its engine's for a database, its kind's otherwise. */
export const familyOf = (kind: Kind, engine?: Engine | null): Family => kindOf(kind).family(engine ?? null);

/** The name of a derivation row's service as the naming rules see it; null when the service is gone. */
export const serviceNameIn = (row: DerivationRow): string | null =>
  row.service === null ? null : serviceText(row, kindOf(row.kind).nameColumn);

/** The rows of every credential-holding kind whose ids are `ids`, as queries not yet sent (decode with {@link targetsFrom}). */
export const targetRowsQueries = (db: Queryable, ids: string[]): BatchQuery[] =>
  CREDENTIAL_KIND_NAMES.map((k) => credentialsOf(k).rowsQuery(db, ids));

/** The credential targets by id from the answers of {@link targetRowsQueries}, in their order. */
export function targetsFrom(answers: readonly unknown[]): Map<string, CredentialTarget> {
  const out = new Map<string, CredentialTarget>();
  CREDENTIAL_KIND_NAMES.forEach((kind, i) => {
    for (const resource of (answers[i] ?? []) as Array<{ id: string }>)
      out.set(resource.id, { kind, resource } as CredentialTarget);
  });
  return out;
}

/** A new or rotated principal's credential on `target`, as shown once. */
export const shownSecret = <K extends CredentialKindName>(
  ctx: EngineContext,
  target: CredentialTarget<K>,
  name: string,
  secret: string,
): ShownSecret => credentialsOf(target.kind).shown(ctx, target.resource, name, secret);

/** Why connections to `target` are always served by its shared credential, or null. */
export const sharedOnlyReason = <K extends CredentialKindName>(target: CredentialTarget<K>): string | null =>
  credentialsOf(target.kind).sharedOnly(target.resource);

/** The database whose shared logins a connection to `target` on its shared credential is handed; null when none. */
export const sharedLoginsOf = <K extends CredentialKindName>(
  target: CredentialTarget<K>,
): DatabaseRow | null => credentialsOf(target.kind).sharedLoginsOf(target.resource);

/** The shared login's level a connection at `grant` on its service's shared credential is handed; null when its kind hands none. */
export const sharedLoginLevel = (grant: KindLevel): DatabaseLevel | null =>
  // Only database kinds hand shared logins, so the level is a database's.
  hasCredential(grant.kind) && credentialsOf(grant.kind).sharedLogins ? (grant.level as DatabaseLevel) : null;

/** Whether `name` is a credential of `target` that no cleanup may drop. */
export const keepsCredential = <K extends CredentialKindName>(
  target: CredentialTarget<K>,
  name: string,
): boolean => credentialsOf(target.kind).keeps(target.resource, name);
