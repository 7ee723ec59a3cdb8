/**
 * Tether's metadata schema. Tokens and keys are stored only as SHA-256 hashes; secrets that
 * must be read back are AES-GCM ciphertexts tagged with their key id (see functions/lib/crypto.ts).
 */
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Every level a connection may be stored at, of any kind. */
export const CONNECTION_LEVELS = ['read-only', 'connect', 'read', 'read-write', 'client', 'admin'] as const;

/** Every reason a delivery's patch may be stored with. */
export const DELIVERY_REASONS = [
  'connect',
  'disconnect',
  'level',
  'rotate',
  'credential',
  'key',
  'promote',
  'variables',
  'sync',
] as const;

export const accounts = pgTable('accounts', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull().unique(),
  name: text('name'),
  createdAt: createdAt(),
});

/** Account tokens and dashboard sessions; `kind` tells them apart, sessions expire. */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['token', 'session'] }).notNull(),
    name: text('name'),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: tstz('expires_at'),
    revokedAt: tstz('revoked_at'),
    /** A session: the account token that minted it (the session dies with it). */
    mintedBy: uuid('minted_by').references((): AnyPgColumn => accountTokens.id, { onDelete: 'cascade' }),
    /** Written by the caller lookup itself, at most once an hour per token. */
    lastUsedAt: tstz('last_used_at'),
    /** A personal token that may only read (403 on every write). */
    readOnly: boolean('read_only').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index('account_tokens_account_idx').on(t.accountId),
    index('account_tokens_minted_by_idx').on(t.mintedBy),
  ],
);

export const projects = pgTable('projects', {
  id: uuid('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

/** A project role offered to one e-mail address; only the hash of its token is kept. */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['read', 'write', 'admin', 'owner'] }).notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    invitedBy: uuid('invited_by').references(() => accounts.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
    acceptedAt: tstz('accepted_at'),
    revokedAt: tstz('revoked_at'),
  },
  (t) => [index('invitations_project_idx').on(t.projectId), index('invitations_email_idx').on(t.email)],
);

export const projectMembers = pgTable(
  'project_members',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['read', 'write', 'admin', 'owner'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.accountId] }), index('members_account_idx').on(t.accountId)],
);

export const sites = pgTable(
  'sites',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    /** User-set variables, encrypted as one JSON document. */
    varsCiphertext: text('vars_ciphertext'),
    /** Set while the site's running app still uses services' shared credentials (before per-connection credentials). */
    legacyCredentials: boolean('legacy_credentials').notNull().default(false),
    /** The `seq` of the site's last live patch sent (contract §9: strictly increasing per site). */
    patchSeq: bigint('patch_seq', { mode: 'number' }).notNull().default(0),
    /**
     * Raised by every change of the site's connections: a write batch reads it first and
     * changes the site only while it still holds that value (functions/use-cases/store/guarded-write.ts).
     */
    connectionsVersion: bigint('connections_version', { mode: 'number' }).notNull().default(0),
    /** A consumer sending one of the site's live patches holds the site until then (one at a time, docs/contract.md §14). */
    deliveryBusyUntil: tstz('delivery_busy_until'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('sites_project_slug_uq').on(t.projectId, t.slug)],
);

/**
 * Project API keys. A managed key belongs to one site (`siteId`) and is derived from its
 * connections; its value is kept encrypted because it is injected as PLATFORM_API_KEY.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    keyCiphertext: text('key_ciphertext'),
    capabilities: jsonb('capabilities').$type<ApiKeyCapabilities>().notNull(),
    siteId: uuid('site_id').references(() => sites.id, { onDelete: 'cascade' }),
    revokedAt: tstz('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('api_keys_project_idx').on(t.projectId),
    uniqueIndex('api_keys_managed_site_uq')
      .on(t.siteId)
      .where(sql`${t.siteId} is not null and ${t.revokedAt} is null`),
  ],
);

export interface ApiKeyCapabilities {
  storage?: boolean;
  databases?: boolean;
  auth?: string[];
}

export const databases = pgTable(
  'databases',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** A registered engine's name (functions/kinds/registry.ts). */
    engine: text('engine').notNull(),
    replicaSet: boolean('replica_set').notNull(),
    status: text('status', { enum: ['running', 'stopped'] })
      .notNull()
      .default('running'),
    /** The database's name on its cluster (unique across the cluster). */
    physicalName: text('physical_name').notNull().unique(),
    mainUser: text('main_user').notNull(),
    mainPasswordCiphertext: text('main_password_ciphertext').notNull(),
    /**
     * PostgreSQL: the shared read-only login `r_…` handed to read-only connections made while the
     * database is stopped (null until made: at creation, or lazily for databases made before).
     */
    readerUser: text('reader_user'),
    readerPasswordCiphertext: text('reader_password_ciphertext'),
    /** The shared read-only login was handed to an app since its password last changed. */
    readerHanded: boolean('reader_handed').notNull().default(false),
    /**
     * The shared connect login `w_…` handed to connect-level connections made while the database
     * is stopped (null until first handed), so no app below admin ever gets the main user.
     */
    writerUser: text('writer_user'),
    writerPasswordCiphertext: text('writer_password_ciphertext'),
    /** The shared connect login was handed to an app since its password last changed. */
    writerHanded: boolean('writer_handed').notNull().default(false),
    /** The main password may have reached an app: the reconciler gives it a new one once. */
    mainExposed: boolean('main_exposed').notNull().default(false),
    /**
     * Made when `<db>_rw` owned the database (so a tenant could lift its connection limit): the
     * reconciler hands it to the admin once it runs (migration 0029).
     */
    ownershipPending: boolean('ownership_pending').notNull().default(false),
    deletedAt: tstz('deleted_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('databases_project_name_uq').on(t.projectId, t.name).where(sql`${t.deletedAt} is null`),
    index('databases_main_exposed_idx').on(t.id).where(sql`${t.mainExposed} = true`),
    index('databases_ownership_pending_idx').on(t.id).where(sql`${t.ownershipPending} = true`),
    index('databases_reader_handed_idx').on(t.id).where(sql`${t.readerHanded} = true`),
    index('databases_writer_handed_idx').on(t.id).where(sql`${t.writerHanded} = true`),
  ],
);

export const buckets = pgTable(
  'buckets',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    region: text('region').notNull(),
    /** The bucket's name at the storage provider (unique across the provider). */
    physicalName: text('physical_name').notNull().unique(),
    accessKeyId: text('access_key_id').notNull(),
    secretKeyCiphertext: text('secret_key_ciphertext').notNull(),
    deletedAt: tstz('deleted_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('buckets_project_name_uq').on(t.projectId, t.name).where(sql`${t.deletedAt} is null`)],
);

/**
 * Each sign-in provider's settings by its name, in the shape its module keeps them
 * (functions/use-cases/sign-in/providers/); secrets apart.
 */
export type AuthProvidersConfig = Record<string, { enabled: boolean } & Record<string, unknown>>;

/** One signing key of an auth app, as stored (the private JWK only as ciphertext). */
export interface StoredSigningKey {
  kid: string;
  alg: string;
  /** The public JWK (kty, crv, x, y, kid, alg, use). */
  public_jwk: Record<string, unknown>;
  /** The private JWK as JSON, encrypted with the service's keyring. */
  private_jwk_ciphertext: string;
  created_at: string;
  /** When a newer key replaced it: it is published until every token it signed has expired. */
  retired_at?: string;
  /** The published next key: it signs nothing until a rotation makes it current (docs/contract.md §15). */
  next?: boolean;
}

export const authApps = pgTable('auth_apps', {
  id: uuid('id').primaryKey(),
  projectId: uuid('project_id')
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' }),
  appId: text('app_id').notNull().unique(),
  name: text('name'),
  enabled: boolean('enabled').notNull().default(true),
  allowedOrigins: jsonb('allowed_origins').$type<string[]>().notNull().default([]),
  userLimit: integer('user_limit'),
  providers: jsonb('providers').$type<AuthProvidersConfig>().notNull().default({}),
  /** Encrypted JSON `{<provider>: string}` of provider secrets (client secrets, Apple's key). */
  providerSecretsCiphertext: text('provider_secrets_ciphertext'),
  /** SERVICE_AUTH_SERVER_KEY, encrypted. */
  serverKeyCiphertext: text('server_key_ciphertext').notNull(),
  /** SHA-256 hex of the server key: how a request presenting it finds its app (null: made before keys were hashed). */
  serverKeyHash: text('server_key_hash').unique('auth_apps_server_key_hash_uq'),
  /** Bumped by every settings write; a PATCH writes only over the version it read. */
  settingsVersion: integer('settings_version').notNull().default(0),
  /** Accept only ID tokens bound to a nonce Tether issued (contract §9). */
  requireIssuedNonce: boolean('require_issued_nonce').notNull().default(false),
  /**
   * The keys that sign this app's access tokens, newest first: the first signs, all are
   * published in the app's JWKS, and no other app's key is. Private halves encrypted. Kept on the
   * app row so every route that reads the app has its key without another round trip.
   */
  signingKeys: jsonb('signing_keys').$type<StoredSigningKey[]>().notNull().default([]),
  /**
   * The mobile apps whose verified links may be redirect origins: iOS app IDs (TEAMID.bundle.id)
   * and Android package names, each listed by the association files every https origin added serves.
   */
  appLinks: jsonb('app_links')
    .$type<{ ios_app_ids: string[]; android_package_names: string[] }>()
    .notNull()
    .default({ ios_app_ids: [], android_package_names: [] }),
  createdAt: createdAt(),
});

export const authUsers = pgTable(
  'auth_users',
  {
    id: uuid('id').primaryKey(),
    authAppId: uuid('auth_app_id')
      .notNull()
      .references(() => authApps.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    emailVerified: boolean('email_verified').notNull().default(false),
    name: text('name'),
    avatarUrl: text('avatar_url'),
    disabled: boolean('disabled').notNull().default(false),
    providers: jsonb('providers').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  // One verified user per address; an unverified identity gets a user of its own (no pre-hijacking).
  (t) => [
    uniqueIndex('auth_users_app_verified_email_uq').on(t.authAppId, t.email).where(sql`${t.emailVerified}`),
    index('auth_users_app_email_idx').on(t.authAppId, t.email),
  ],
);

/**
 * A provider account (Google `sub`, GitHub user id) known to an auth app, and the user it
 * signs in as. Returning users are found by this, not by e-mail.
 */
export const authIdentities = pgTable(
  'auth_identities',
  {
    authAppId: uuid('auth_app_id')
      .notNull()
      .references(() => authApps.id, { onDelete: 'cascade' }),
    /** A registered sign-in provider's name. */
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => authUsers.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.authAppId, t.provider, t.subject] }),
    index('auth_identities_user_idx').on(t.userId),
  ],
);

export const authRefreshTokens = pgTable(
  'auth_refresh_tokens',
  {
    id: uuid('id').primaryKey(),
    authAppId: uuid('auth_app_id')
      .notNull()
      .references(() => authApps.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => authUsers.id, { onDelete: 'cascade' }),
    familyId: uuid('family_id').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    usedAt: tstz('used_at'),
    revokedAt: tstz('revoked_at'),
    expiresAt: tstz('expires_at').notNull(),
    /** The scope granted at the standard authorize endpoint (contract §15), carried on by each rotation; null for the mobile flows. */
    scope: text('scope'),
    /** When the user signed in at the provider (an ID token's auth_time), carried on by each rotation. */
    authTime: tstz('auth_time'),
    createdAt: createdAt(),
  },
  // By user: a user's sessions are revoked, and their last sign-in read, without a table scan.
  (t) => [
    index('refresh_family_idx').on(t.familyId),
    index('auth_refresh_tokens_user_idx').on(t.userId, t.familyId, t.createdAt),
  ],
);

/**
 * Access tokens revoked at an app's /oauth/revoke (RFC 7009), by `jti`, until they would have
 * expired: introspection and UserInfo read them in the query they already make.
 */
export const authRevokedAccessTokens = pgTable(
  'auth_revoked_access_tokens',
  {
    authAppId: uuid('auth_app_id')
      .notNull()
      .references(() => authApps.id, { onDelete: 'cascade' }),
    jti: uuid('jti').notNull(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.authAppId, t.jti] })],
);

/**
 * A connection: one site may use one service at one level. The credential columns hold the
 * connection's own credential (`credentialMode = 'own'`) or mark that the service's shared
 * credential serves it (`'shared'`).
 */
export const connections = pgTable(
  'connections',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    siteId: uuid('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['database', 'bucket', 'auth_app'] }).notNull(),
    resourceId: uuid('resource_id').notNull(),
    /** The stored levels of every kind (functions/domain/levels.ts LEVELS; test/unit/schema-vocabulary.test.ts keeps them equal). */
    level: text('level', { enum: CONNECTION_LEVELS }).notNull(),
    credentialMode: text('credential_mode', { enum: ['own', 'shared', 'none'] })
      .notNull()
      .default('none'),
    credentialName: text('credential_name'),
    credentialSecretCiphertext: text('credential_secret_ciphertext'),
    /** Whether it holds its family's plain names (contract §9: they move only by promote). */
    holdsPlain: boolean('holds_plain').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('connections_site_resource_uq').on(t.siteId, t.kind, t.resourceId),
    index('connections_project_idx').on(t.projectId),
    index('connections_resource_idx').on(t.resourceId),
    index('connections_credential_idx').on(t.credentialName),
    index('connections_shared_idx').on(t.createdAt).where(sql`${t.credentialMode} = 'shared'`),
    // The daily sweep's page of own database credentials, read from the index alone.
    index('connections_own_database_idx')
      .on(t.id)
      .where(sql`${t.kind} = 'database' and ${t.credentialMode} = 'own'`),
  ],
);

/**
 * A named principal (contract §7): an outside system's own credential on a database or bucket,
 * provisioned like a connection's (a `c_` role or user, or a bucket key) but held by no site.
 * `credentialName` is the username or access key id; the secret is kept encrypted so the
 * reconciler can restore a role that went missing. A revoked principal keeps its row (so a
 * second DELETE answers `revoked:false`) and frees its name.
 */
export const principals = pgTable(
  'principals',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['database', 'bucket'] }).notNull(),
    resourceId: uuid('resource_id').notNull(),
    name: text('name').notNull(),
    level: text('level').notNull(),
    credentialName: text('credential_name').notNull(),
    secretCiphertext: text('secret_ciphertext').notNull(),
    allowedSources: jsonb('allowed_sources').$type<string[]>().notNull().default([]),
    /** `pending` until its allowed sources are enforced (it cannot log in meanwhile), then `active`. */
    state: text('state', { enum: ['pending', 'active'] })
      .notNull()
      .default('active'),
    expiresAt: tstz('expires_at'),
    revokedAt: tstz('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('principals_resource_name_uq')
      .on(t.kind, t.resourceId, t.name)
      .where(sql`${t.revokedAt} is null`),
    index('principals_resource_idx').on(t.resourceId),
    index('principals_credential_idx').on(t.credentialName),
    index('principals_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.revokedAt} is null and ${t.expiresAt} is not null`),
    // The reconciler's look at principals still waiting for their sources, oldest first.
    index('principals_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.state} = 'pending' and ${t.revokedAt} is null`),
  ],
);

/** Credentials that must be removed from an outside system (after disconnect, delete or a failed step). */
export const credentialCleanups = pgTable(
  'credential_cleanups',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind', { enum: ['database', 'bucket'] }).notNull(),
    resourceId: uuid('resource_id').notNull(),
    credentialName: text('credential_name').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    doneAt: tstz('done_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('credential_cleanups_pending_idx').on(t.createdAt).where(sql`${t.doneAt} is null`),
    index('credential_cleanups_name_idx').on(t.credentialName),
  ],
);

/**
 * A connection's latest credential rotation (docs/contract.md §14): graceful ones keep the old
 * credential (`oldCredentialName`) valid until the new one's delivery is live and, for a
 * database, its last session ended, or `retiresBy`; `retiredAt` set means done. No foreign key to
 * connections: a row whose connection went keeps naming the old credential until it is gone.
 */
export const connectionRotations = pgTable(
  'connection_rotations',
  {
    connectionId: uuid('connection_id').primaryKey(),
    projectId: uuid('project_id').notNull(),
    siteId: uuid('site_id').notNull(),
    kind: text('kind', { enum: ['database', 'bucket'] }).notNull(),
    resourceId: uuid('resource_id').notNull(),
    oldCredentialName: text('old_credential_name'),
    /** The live patch that carries the new secret. */
    deliveryId: uuid('delivery_id'),
    immediate: boolean('immediate').notNull().default(false),
    startedAt: tstz('started_at').notNull(),
    liveAt: tstz('live_at'),
    retiredAt: tstz('retired_at'),
    retiresBy: tstz('retires_by'),
    /** Open sessions of the old login at the last look (null: the system does not tell). */
    oldSessions: integer('old_sessions'),
    lastError: text('last_error'),
  },
  (t) => [
    index('connection_rotations_open_idx').on(t.startedAt).where(sql`${t.retiredAt} is null`),
    index('connection_rotations_old_name_idx').on(t.oldCredentialName).where(sql`${t.retiredAt} is null`),
    index('connection_rotations_site_idx').on(t.siteId).where(sql`${t.retiredAt} is null`),
    index('connection_rotations_delivery_idx').on(t.deliveryId).where(sql`${t.retiredAt} is null`),
  ],
);

/**
 * A service credential's or a principal's old secret kept valid after a rotate with
 * `?grace_seconds=N` (docs/contract.md §14), until the reconciler retires it at `retiresAt`.
 * `principalId` null: the service's own credential.
 */
export const credentialRetirements = pgTable(
  'credential_retirements',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id').notNull(),
    kind: text('kind', { enum: ['database', 'bucket'] }).notNull(),
    resourceId: uuid('resource_id').notNull(),
    credentialName: text('credential_name').notNull(),
    principalId: uuid('principal_id'),
    retiresAt: tstz('retires_at').notNull(),
    retiredAt: tstz('retired_at'),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('credential_retirements_open_idx').on(t.retiresAt).where(sql`${t.retiredAt} is null`),
    index('credential_retirements_name_idx').on(t.credentialName).where(sql`${t.retiredAt} is null`),
    index('credential_retirements_owner_idx')
      .on(t.resourceId, t.principalId)
      .where(sql`${t.retiredAt} is null`),
  ],
);

export const deploys = pgTable(
  'deploys',
  {
    id: uuid('id').primaryKey(),
    siteId: uuid('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    rollbackOf: uuid('rollback_of'),
    envNames: jsonb('env_names').$type<string[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('deploys_site_idx').on(t.siteId)],
);

/**
 * Outbound deliveries (live patches and network policies). They carry names and ids only;
 * values are derived when the delivery is sent.
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind', { enum: ['runtime_patch', 'network_policy'] }).notNull(),
    projectId: uuid('project_id').notNull(),
    /** site id for a runtime patch, database id for a network policy */
    targetId: uuid('target_id').notNull(),
    /** Why the variables changed (functions/domain/patch-reasons.ts; test/unit/schema-vocabulary.test.ts keeps them equal). */
    reason: text('reason', { enum: DELIVERY_REASONS }),
    setNames: jsonb('set_names').$type<string[]>().notNull().default([]),
    unsetNames: jsonb('unset_names').$type<string[]>().notNull().default([]),
    status: text('status', { enum: ['pending', 'delivered', 'live', 'dead', 'superseded'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** A consumer holding the delivery until then; a second copy of its message leaves it alone. */
    claimedUntil: tstz('claimed_until'),
    lastAttemptAt: tstz('last_attempt_at'),
    deliveredAt: tstz('delivered_at'),
    /** When the target confirmed the change where the app runs (docs/contract.md §14). */
    liveAt: tstz('live_at'),
    /**
     * The step a delivery written to its platform is at on the way to live (a redeploy or Machine
     * update, adapters/targets); null once live, or when nothing follows the write.
     */
    confirmState: jsonb('confirm_state').$type<unknown>(),
    /** A live patch's `seq` as last sent (null until sent). */
    seq: bigint('seq', { mode: 'number' }),
    /**
     * Until when a queue message stands for this pending delivery (null: its first, until
     * `created_at` plus the queue's lease); the reconciler re-sends only one past it.
     */
    requeueAfter: tstz('requeue_after'),
    createdAt: createdAt(),
  },
  (t) => [
    index('deliveries_status_idx').on(t.status, t.kind),
    index('deliveries_target_idx').on(t.targetId),
    index('deliveries_target_created_idx').on(t.targetId, t.createdAt),
    index('deliveries_confirming_idx').on(t.lastAttemptAt).where(sql`${t.confirmState} is not null`),
    // At most one pending policy per database: recordings side by side (the reconciler and a
    // connection change's) insert one, never two (network-policy.ts policyDriftStatement).
    uniqueIndex('deliveries_pending_policy_uq')
      .on(t.targetId)
      .where(sql`${t.kind} = 'network_policy' and ${t.status} = 'pending'`),
  ],
);

/**
 * A site's delivery target (contract §11): where its live patches go instead of the
 * platform-wide RUNTIME_PATCH_URL. `config` holds the target's public fields; its API token (or
 * a webhook's secret) is kept encrypted.
 */
export const siteTargets = pgTable('site_targets', {
  siteId: uuid('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  projectId: uuid('project_id').notNull(),
  type: text('type').notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
  secretCiphertext: text('secret_ciphertext').notNull(),
  createdAt: createdAt(),
});

/** What the dead-letter queue received. */
export const deadLetters = pgTable('dead_letters', {
  id: uuid('id').primaryKey(),
  queue: text('queue').notNull(),
  body: jsonb('body').notNull(),
  attempts: integer('attempts').notNull(),
  createdAt: createdAt(),
});

/**
 * The Activity record: one row per change, written in the same batch or transaction as the
 * change itself (functions/use-cases/activity/). `seq` orders it and is its cursor; `project_id`
 * scopes a project's events and `account_id` an account's own (sign-ins, tokens). No foreign
 * keys: events outlive what they name until the retention purge removes them.
 */
export const activityEvents = pgTable(
  'activity_events',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    id: uuid('id').notNull().defaultRandom(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    actorType: text('actor_type', { enum: ['account', 'api_key', 'operator', 'system'] }).notNull(),
    actorId: text('actor_id').notNull(),
    actorEmail: text('actor_email'),
    actorName: text('actor_name'),
    via: text('via', { enum: ['api', 'console', 'cli', 'system'] }).notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    targetName: text('target_name'),
    projectId: uuid('project_id'),
    siteId: uuid('site_id'),
    accountId: uuid('account_id'),
    ip: text('ip'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    uniqueIndex('activity_events_id_uq').on(t.id),
    index('activity_events_project_idx').on(t.projectId, t.seq).where(sql`${t.projectId} is not null`),
    index('activity_events_account_idx').on(t.accountId, t.seq).where(sql`${t.accountId} is not null`),
    index('activity_events_at_idx').on(t.at),
  ],
);

/**
 * What changed and must be reconciled (`kind` 'policy': a database whose network policy may
 * differ). Written by triggers in the change's own transaction; taken oldest first.
 */
export const reconcileMarks = pgTable(
  'reconcile_marks',
  {
    kind: text('kind').notNull(),
    targetId: uuid('target_id').notNull(),
    markedAt: tstz('marked_at').notNull().defaultNow(),
    /** Taken from a sequence at every change, so a mark is removed only if nothing changed since it was read. */
    seq: bigint('seq', { mode: 'number' }).notNull().default(sql`nextval('reconcile_marks_seq')`),
  },
  (t) => [
    primaryKey({ name: 'reconcile_marks_pk', columns: [t.kind, t.targetId] }),
    index('reconcile_marks_due_idx').on(t.kind, t.markedAt),
  ],
);

/** Each reconciler step's and sweep's progress: cursor, last run, last success, failures in a row. */
export const reconcilerState = pgTable('reconciler_state', {
  name: text('name').primaryKey(),
  cursor: text('cursor'),
  lapStartedAt: tstz('lap_started_at'),
  lastRunAt: tstz('last_run_at'),
  lastOkAt: tstz('last_ok_at'),
  failures: integer('failures').notNull().default(0),
  lastError: text('last_error'),
  lastCount: integer('last_count').notNull().default(0),
});

/** One item a reconciler step could not finish, retried after `retryAt` while the rest go on. */
export const reconcileFailures = pgTable(
  'reconcile_failures',
  {
    step: text('step').notNull(),
    itemId: text('item_id').notNull(),
    attempts: integer('attempts').notNull().default(1),
    lastError: text('last_error'),
    firstFailedAt: tstz('first_failed_at').notNull().defaultNow(),
    retryAt: tstz('retry_at').notNull(),
  },
  (t) => [primaryKey({ name: 'reconcile_failures_pk', columns: [t.step, t.itemId] })],
);
