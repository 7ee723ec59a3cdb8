/**
 * What one kind of service (database, bucket, auth app) brings: its words, its variable family
 * and the values its connections are handed, what a site's managed key may do for it, and, for a
 * kind whose connections hold a credential of their own, how those credentials are made and shown.
 * Generic code (derivation, connections, credentials, principals, the listings, the console)
 * reaches a kind only through these descriptors and the registry (registry.ts).
 */
import type { SQL } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../db/client';
import type { BucketRow, DatabaseRow } from '../../db/rows';
import type { ApiKeyCapabilities } from '../../db/schema';
import type { Adapters } from '../adapters';
import type { Config } from '../config';
import type { Kind, LevelOf } from '../domain/levels';
import type { Engine, Family, VariableFamily } from '../domain/variables';
import type { ApiError } from '../lib/errors';
import type { z } from '../lib/openapi';
import type { CredentialProvisioner } from './credential-provisioner';
import type { EngineContext, Login } from './database-engine';
import type { OutsideSystem } from './outside-system';

/** The columns of a service's row a derivation reads (its kind's `derivedFrom`), by column name. */
export type ServiceColumns = Readonly<Record<string, string | boolean | number | null>>;

/** One connection of a site with its live service's columns, as the derivation of its variables reads it. */
export type DerivationRow = {
  id: string;
  kind: Kind;
  resource_id: string;
  credential_mode: 'own' | 'shared' | 'none';
  credential_name: string | null;
  credential_secret_ciphertext: string | null;
  holds_plain: boolean;
  created_at: string;
  level: string;
  /**
   * The service's name column, its `engine` (for a kind with engines) and the columns its kind's
   * `derivedFrom` lists; null when the service is gone or removed.
   */
  service: ServiceColumns | null;
};

/** The text of column `column` of a derivation row's service, or null (no service, or no value). */
export const serviceText = (row: DerivationRow, column: string): string | null => {
  const value = row.service?.[column];
  return value === undefined || value === null ? null : String(value);
};

/** What a kind's values may use: configuration, outside systems, and the connection's login. */
export interface DerivationContext extends EngineContext {
  /** The login the connection uses: its own credential, or the service's shared one (`user`, `cipher`). */
  login(row: DerivationRow, user: string | null, cipher: string | null): Promise<Login>;
}

/** The stored row of each kind whose connections hold a credential of their own. */
export type ResourceOf = { database: DatabaseRow; bucket: BucketRow };
/** A kind whose connections hold a credential of their own. */
export type CredentialKindName = keyof ResourceOf;

/** A service a credential is for: its kind and its stored row. */
export type CredentialTarget<K extends CredentialKindName = CredentialKindName> = {
  [P in K]: { kind: P; resource: ResourceOf[P] };
}[K];

/** A read of rows `R`, to send alone (await it) or in a batch. */
export type RowsQuery<R> = BatchQuery & PromiseLike<R[]>;

/** A named principal's secret as its creation or rotation shows it, once. */
export type ShownSecret =
  | { username: string; password: string; url: string }
  | { access_key_id: string; secret_access_key: string };

/**
 * What a kind's principal routes (routes/principals.ts) take from it: its services' id parameter
 * in their paths, the fields a principal's secret is shown with once (and their schema's name),
 * what its systems enforce of expiry and allowlist, and what a rotate gives and a revoke ends
 * beyond the common ('' for nothing more).
 */
export interface PrincipalDocs {
  readonly idParam: string;
  readonly shown: { readonly name: string; readonly fields: z.ZodRawShape };
  readonly enforced: string;
  readonly rotated: string;
  readonly revoked: string;
  /** What a graceful rotate makes beside the old secret. */
  readonly beside: string;
}

/** How a kind's connections and principals hold credentials of their own. */
export interface CredentialKind<K extends CredentialKindName> {
  /** The field a principal's credential name is listed under. */
  readonly credentialField: 'username' | 'access_key_id';
  /** That field's name for people (the console's column). */
  readonly credentialLabel: string;
  /** Whether its principals take part in the service's network policy (host rules delivered with it). */
  readonly networkPolicy: boolean;
  /**
   * Whether a principal's graceful rotation makes its new secret beside the old one under the same
   * name (a bucket key user's second key), rather than a second credential of its own.
   */
  readonly principalRotatesBeside: boolean;
  /** Whether a rotated credential can be given its old secret back (a rotation whose new one was not stored). */
  readonly secretReturns: boolean;
  /** The provisioner of its credentials; 503 SERVICE_UNAVAILABLE when the deployment configures none. */
  provisioner(adapters: Adapters, resource: ResourceOf[K]): CredentialProvisioner<ResourceOf[K], LevelOf<K>>;
  /** Why connections to `resource` are always served by its shared credential, or null. */
  sharedOnly(resource: ResourceOf[K]): string | null;
  /** Whether connections to `resource` are served by its shared credential right now. */
  sharedNow(resource: ResourceOf[K]): boolean;
  /** Whether its connections on the shared credential are handed a shared login of their level. */
  readonly sharedLogins: boolean;
  /** The database whose shared logins such connections to `resource` are handed; null when none. */
  sharedLoginsOf(resource: ResourceOf[K]): DatabaseRow | null;
  /** Whether `name` is a credential no cleanup may drop (the service's own main login). */
  keeps(resource: ResourceOf[K], name: string): boolean;
  /** A new or rotated principal's credential as shown once. */
  shown(ctx: EngineContext, resource: ResourceOf[K], name: string, secret: string): ShownSecret;
  /** What its principal routes say and show. */
  readonly principalDocs: PrincipalDocs;
  /**
   * How many live principals one service may hold and the variable that sets it (contract §9, The
   * shared cluster: each database principal may hold sessions there); null for no cap.
   */
  principalCap(config: Config): { max: number; variable: string } | null;
  /** The rows (removed ones included) whose ids are `ids` (a list, or SQL selecting them), as a query not yet sent. */
  rowsQuery(db: Queryable, ids: string[] | SQL): RowsQuery<ResourceOf[K]>;
  /** The project's live services, oldest first, as a query not yet sent. */
  listQuery(db: Queryable, projectId: string | SQL): RowsQuery<ResourceOf[K]>;
  /** The live service `id` of the project `projectId` names, as a query not yet sent. */
  liveQuery(db: Queryable, projectId: string | SQL, id: string): RowsQuery<ResourceOf[K]>;
  /** The service {@link liveQuery} found; 404 when none. */
  liveOf(rows: unknown): ResourceOf[K];
}

/** One kind of service's descriptor. */
export interface ServiceKind<K extends Kind = Kind> {
  /** The kind's name in the API and the `kind` columns. */
  readonly name: K;
  /** Its name in messages. */
  readonly word: string;
  /** Its plural: the OpenAPI tag of its routes. */
  readonly plural: string;
  /** The words the CLI takes for it (`tether connect db shop`), its group command first. */
  readonly commandWords: readonly string[];
  /** Its levels, lowest first, each with what it lets an app do in words (the console and the CLI show it beside the level). */
  readonly levels: readonly { readonly level: LevelOf<K>; readonly meaning: string }[];
  /** What changing a connection's level does beyond the level, asked before the change; null when nothing. */
  readonly levelChangeConsequence: string | null;
  /** Its metadata table. */
  readonly table: string;
  /** The column of that table its services are named by (an auth app's is its app_id). */
  readonly nameColumn: string;
  /** The boolean column saying whether a service may be connected to now; null when every live one may. */
  readonly enabledColumn: string | null;
  /** Whether a removed service keeps its row with `deleted_at` set. */
  readonly softDeleted: boolean;
  /** Whether its services name an engine (their table's `engine` column). */
  readonly hasEngine: boolean;
  /** The system its services live on, beside any engine's: its own variables and adapter (absent: none). */
  readonly system?: OutsideSystem;
  /** The variable families it hands (a database's come with its engines). */
  readonly families: readonly VariableFamily[];
  /** Its variable family: a database's is its engine's. */
  family(engine: Engine | null): Family;
  /** The columns of its table its `values` read (its name column and `engine` are read anyway). */
  readonly derivedFrom: readonly string[];
  /** The values of its family's plain names for one connection. */
  values(ctx: DerivationContext, row: DerivationRow): Promise<Record<string, string>>;
  /** What a site's managed key may do because of its connections of this kind (none: `{}`). */
  capabilities(conns: Array<{ resourceId: string; level: string }>): ApiKeyCapabilities;
  /** The 409 a unique violation of `constraint` means for a new service named `name`, if it does. */
  nameTaken(constraint: string | undefined, name: string): ApiError | undefined;
  /** How its connections hold credentials of their own; null when they hold none. */
  readonly credentials: K extends CredentialKindName ? CredentialKind<K> : null;
}

/**
 * A kind a plugin registers (registry.ts `registerKind`): named and levelled in strings, with the
 * level a connection gets when none is given. Its connections hold no credential of their own
 * (the credential flows know databases' and buckets' systems); its services live in its own table.
 */
export type PluginKind = Omit<ServiceKind, 'name' | 'levels' | 'credentials'> & {
  readonly name: string;
  readonly levels: readonly { readonly level: string; readonly meaning: string }[];
  readonly defaultLevel: string;
  readonly credentials: null;
  /** How its services are made by their routes (routes/plugin-services.ts). */
  readonly creation: PluginCreation;
  /** The columns of its table a service is shown with beside `id`, its name and `created_at`. */
  readonly shown: readonly string[];
};

/** The value of a column of a plugin kind's table, as its routes write and show it. */
export type ColumnValue = string | number | boolean | null;

/** What a plugin kind's new service takes beside its name, and the row it makes from it. */
export interface PluginCreation {
  /** The request's fields beside `name` (a zod shape; {} for none): any other field is a 400. */
  readonly fields: z.ZodRawShape;
  /** The columns of its row beside `id`, `project_id`, its name and `created_at`, from the request. */
  columns(input: Readonly<Record<string, unknown>> & { readonly name: string }): Record<string, ColumnValue>;
}
