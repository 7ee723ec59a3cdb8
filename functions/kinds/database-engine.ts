/**
 * What one database engine brings: its variable family, the values of its variables, its
 * credentials' provisioner, the life of its databases and the drift checks of the credentials it
 * holds. Generic code (derivation, connections, credentials, the reconciler, the routes) reaches
 * an engine only through this interface and the registry (registry.ts), so a new engine is one
 * folder here and one `registerEngine` call: its outside system (variables and adapter) comes with it.
 */
import type { DatabaseRow } from '../../db/rows';
import type { Adapters } from '../adapters';
import type { Config } from '../config';
import type { DatabaseLevel } from '../domain/levels';
import type { Engine, VariableFamily } from '../domain/variables';
import type { DatabaseProvisioner } from './credential-provisioner';
import type { OutsideSystem } from './outside-system';

/** What an engine's operations may reach: the configuration and the outside systems. */
export interface EngineContext {
  config: Config;
  adapters: Adapters;
}

/** Where the database tunnel leads. */
export interface TunnelEndpoint {
  host: string;
  port: number;
  tls: boolean;
}

/** A login on a database: a role or user and its password. */
export interface Login {
  user: string;
  secret: string;
}

/** The connection strings a database's credentials views show for one login. */
export interface DatabaseUrls {
  url: string;
  external_url: string;
  pooled_url: string;
}

/** A credential the engine's system holds that looks made by Tether, with the way to remove it. */
export interface HeldCredential {
  name: string;
  createdAt: Date | null;
  /** The physical name of the database it reaches, where the system says (for the Activity record). */
  database?: string;
  drop(): Promise<void>;
}

/** Which held credentials a listing returns: these names, or a page of names after `after`. */
export interface HeldScope {
  names?: readonly string[];
  after?: string;
  limit?: number;
}

/** Applies `scope` to a whole listing (for systems that list everything at once). */
export function inScope<T extends { name: string }>(all: T[], scope: HeldScope = {}): T[] {
  const names = scope.names && new Set(scope.names);
  const after = scope.after;
  const kept = all
    .filter((h) => (!names || names.has(h.name)) && (after === undefined || h.name > after))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scope.limit === undefined ? kept : kept.slice(0, scope.limit);
}

/** One database engine's descriptor. */
export interface DatabaseEngine {
  /** The engine's name in the API and the `databases.engine` column. */
  readonly name: Engine;
  /** Its name for people (the console's engine choice). */
  readonly label: string;
  /** The names its connections are handed. */
  readonly family: VariableFamily;
  /** Whether read-only apps on the shared credential get the shared read-only login `r_<physical>`. */
  readonly sharedReader: boolean;
  /** The system its databases live on: its own variables and the adapter built from them (absent: none). */
  readonly system?: OutsideSystem;
  /**
   * Where the database tunnel (`tether connect --local`) leads for its databases: the cluster's
   * address and whether it wants TLS; absent where the tunnel does not reach them.
   */
  tunnelEndpoint?(ctx: EngineContext): TunnelEndpoint;
  /** Whether a new database runs as a replica set, from what the request asked. */
  replicaSet(requested: boolean | undefined): boolean;
  /**
   * Why connections to `db` are always served by its shared credential (a standalone MongoDB),
   * or null when they get their own while it runs.
   */
  sharedOnly(db: DatabaseRow): string | null;
  /** The provisioner of its credentials; 503 SERVICE_UNAVAILABLE when the deployment configures none. */
  provisioner(adapters: Adapters): DatabaseProvisioner;
  /** The values of the family's plain names for `login` on `db` (physical name), as apps use them. */
  values(ctx: EngineContext, database: string, login: Login): Record<string, string>;
  /** The three URLs a credentials view shows for `login` on `db`. */
  urls(ctx: EngineContext, db: DatabaseRow, login: Login): DatabaseUrls;
  /** Creates database `physical` with its main login; throws SERVICE_UNAVAILABLE having made nothing. */
  createDatabase(ctx: EngineContext, physical: string, main: Login): Promise<void>;
  /** Drops database `physical` and `logins`; idempotent; throws SERVICE_UNAVAILABLE. */
  dropDatabase(ctx: EngineContext, physical: string, logins: string[]): Promise<void>;
  /**
   * Makes a database made before its engine kept tenants from altering it safe (its owner no
   * role a tenant can use, its connection limit restored); absent where there is nothing to do.
   * Needs the database running.
   */
  secureDatabase?(ctx: EngineContext, physical: string): Promise<void>;
  /** Stops or starts the database at its system; throws SERVICE_UNAVAILABLE. */
  setRunning(ctx: EngineContext, physical: string, running: boolean): Promise<void>;
  /**
   * The `c_` credentials its system holds now, ordered by name (all, or those `scope` names or
   * pages to); null when the deployment configures no such system.
   */
  heldCredentials(adapters: Adapters, scope?: HeldScope): Promise<HeldCredential[] | null>;
  /**
   * Makes credential `name` again with its `secret` and `level` on `db` (a connection's own
   * login that went missing); false when it exists meanwhile.
   */
  restoreCredential(
    ctx: EngineContext,
    db: Pick<DatabaseRow, 'physicalName' | 'status'>,
    login: Login,
    level: DatabaseLevel,
  ): Promise<boolean>;
  /**
   * Whether the system refuses `login` on database `physical` (checked by logging in), for the
   * repair of stored passwords; absent where the system cannot be asked.
   */
  passwordRefused?(adapters: Adapters, physical: string, login: Login): Promise<boolean>;
}
