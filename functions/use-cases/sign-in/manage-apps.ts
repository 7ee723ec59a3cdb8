/**
 * Auth apps as the management API sees them: creation (with the server key and the initial
 * connection), listing without secrets, and PATCH of providers, origins, user limit and enabled.
 */

import { and, eq, or, type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../../db/client';
import { type AuthProvidersConfig, authApps } from '../../../db/schema';
import type { Config } from '../../config';
import { checkAllowedOrigins } from '../../domain/allowed-origins';
import { type AppLinks, NO_APP_LINKS, sameAppLinks } from '../../domain/app-links';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { activityQuery } from '../activity';
import { assertNameFree } from '../resources/name-checks';
import { type InitialSite, initialSiteQueries, writeNewService } from '../resources/new-service-write';
import { runGuarded } from '../store/guarded-write';
import { newServerKey } from './app-lifecycle';
import { findAuthApp } from './app-reads';
import { type AuthAppRow, type ProviderSecrets, providerSecrets } from './apps';
import { checkAssociationFiles } from './association-check';
import { authUrlOf, issuerOf } from './auth-urls';
import { blockCodes, unblockCodes } from './code-regions';
import { allProviders } from './providers/provider-registry';
import { firstKeys } from './signing-keys';

/** The auth app object of the management API (never a secret). */
export interface AuthAppBody {
  id: string;
  app_id: string;
  name: string | null;
  enabled: boolean;
  allowed_origins: string[];
  user_limit: number | null;
  require_issued_nonce: boolean;
  app_links: AppLinks;
  /** Each configured provider's view (its module's `view`), by name. */
  providers: Record<string, Record<string, unknown>>;
  /** `{auth_url}`: the auth service's address (the same for every app). */
  auth_url: string;
  /** `{auth_url}/v1/{app_id}`: where this app's routes live and the `iss` of its tokens. */
  issuer: string;
  created_at: string;
}

/** The auth app object of a row; `secretsSet` says which providers hold a client secret. */
export function toAuthAppBody(
  config: Config,
  row: AuthAppRow,
  secretsSet: ProviderSecrets = {},
): AuthAppBody {
  const providers: AuthAppBody['providers'] = {};
  for (const provider of allProviders()) {
    const settings = row.providers[provider.name];
    if (settings) providers[provider.name] = provider.view(settings, Boolean(secretsSet[provider.name]));
  }
  return {
    id: row.id,
    app_id: row.appId,
    name: row.name,
    enabled: row.enabled,
    allowed_origins: row.allowedOrigins,
    user_limit: row.userLimit,
    require_issued_nonce: row.requireIssuedNonce,
    app_links: row.appLinks ?? NO_APP_LINKS,
    providers,
    auth_url: authUrlOf(config),
    issuer: issuerOf(config, row.appId),
    created_at: row.createdAt.toISOString(),
  };
}

/** The management body of a row, decrypting only to learn which secrets are set. */
export async function describeAuthApp(config: Config, row: AuthAppRow): Promise<AuthAppBody> {
  return toAuthAppBody(config, row, await providerSecrets(config, row));
}

/** An auth app's app_id and project, as its creation reads them. */
export interface AppIdHolder {
  appId: string;
  projectId: string;
}

/**
 * The reads an auth app's creation makes with its caller, not yet sent: the apps holding
 * `appId` anywhere (app_ids are unique across the service) or in the project `projectId`
 * gives (their variable names), then its only site's (initialSiteQueries). Decode with
 * creationReadFrom<AppIdHolder>.
 */
export function authAppCreationQueries(db: HttpDb, projectId: SQL, appId: string): BatchQuery[] {
  const holders = db
    .select({ appId: authApps.appId, projectId: authApps.projectId })
    .from(authApps)
    .where(or(eq(authApps.appId, appId), eq(authApps.projectId, projectId)));
  return [holders, ...initialSiteQueries(db, projectId)];
}

/**
 * Creates an auth app with a fresh server key and signing key, connected to the project's only
 * site if it has one, in one guarded batch (writeNewService: the row, the connection and its
 * live patch, enqueued once committed). `read` was read with the caller.
 */
export async function createAuthApp(
  ctx: RequestContext,
  projectId: string,
  input: { app_id: string; name?: string },
  read: { existing: AppIdHolder[]; initial: InitialSite },
): Promise<AuthAppRow> {
  if (read.existing.some((a) => a.appId === input.app_id))
    throw new ApiError('CONFLICT', `an auth app with app_id ${input.app_id} already exists`);
  // Each auth app of a project holds SERVICE_AUTH_*_<NAME>: two app_ids with one <NAME> would share them.
  const siblings = read.existing.filter((a) => a.projectId === projectId).map((a) => a.appId);
  assertNameFree(input.app_id, [], siblings, 'auth app', 'app_id');
  const { config } = ctx;
  const serverKey = await newServerKey(ctx);
  const row: AuthAppRow = {
    id: newId(),
    projectId,
    appId: input.app_id,
    name: input.name ?? null,
    enabled: true,
    allowedOrigins: [],
    userLimit: null,
    providers: {},
    providerSecretsCiphertext: null,
    serverKeyCiphertext: serverKey.ciphertext,
    serverKeyHash: serverKey.hash,
    settingsVersion: 0,
    requireIssuedNonce: false,
    appLinks: NO_APP_LINKS,
    // Each app signs its tokens with a key of its own, and publishes the next one from the start.
    signingKeys: await firstKeys(config),
    createdAt: new Date(),
  };
  const app = { kind: 'auth_app' as const, resource: { id: row.id, projectId, name: row.appId } };
  await writeNewService(ctx, app, read.initial, (db) => db.insert(authApps).values(row));
  return row;
}

/**
 * Provider settings as PATCH takes them, by provider name; `null` removes a provider. A field
 * left out keeps the provider's current value (each module's applyPatch).
 */
export type ProvidersPatch = Record<string, Record<string, unknown> | null | undefined>;

/** A PATCH of an auth app. */
export interface AuthAppPatch {
  name?: string | null;
  enabled?: boolean;
  allowed_origins?: string[];
  user_limit?: number | null;
  require_issued_nonce?: boolean;
  app_links?: Partial<AppLinks>;
  providers?: ProvidersPatch;
}

async function mergeProviders(row: AuthAppRow, secrets: ProviderSecrets, patch: ProvidersPatch) {
  const providers: AuthProvidersConfig = { ...row.providers };
  const nextSecrets: ProviderSecrets = { ...secrets };
  for (const provider of allProviders()) {
    const given = patch[provider.name];
    if (given === undefined) continue;
    if (given === null) {
      delete providers[provider.name];
      delete nextSecrets[provider.name];
      continue;
    }
    const next = await provider.applyPatch(row.providers[provider.name], given, secrets[provider.name]);
    providers[provider.name] = next.settings;
    if (next.secret === undefined) delete nextSecrets[provider.name];
    else nextSecrets[provider.name] = next.secret;
  }
  return { providers, secrets: nextSecrets };
}

/** How many times a PATCH reads the app again when another write changed it meanwhile. */
const PATCH_ATTEMPTS = 10;

/** The columns a PATCH sets on `row`, and the provider secrets after it. */
async function patchedColumns(config: Config, row: AuthAppRow, patch: AuthAppPatch) {
  const set: Partial<typeof authApps.$inferInsert> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.enabled !== undefined) set.enabled = patch.enabled;
  if (patch.user_limit !== undefined) set.userLimit = patch.user_limit;
  if (patch.require_issued_nonce !== undefined) set.requireIssuedNonce = patch.require_issued_nonce;
  if (patch.allowed_origins !== undefined) {
    const checked = checkAllowedOrigins(patch.allowed_origins);
    if (!checked.ok) {
      const field = `allowed_origins[${checked.index}]`;
      throw new ApiError('VALIDATION_FAILED', `${field}: ${checked.reason}`, field);
    }
    set.allowedOrigins = checked.origins;
  }
  const links = row.appLinks ?? NO_APP_LINKS;
  if (patch.app_links !== undefined) set.appLinks = { ...links, ...patch.app_links };
  // New origins are checked against the files; when the mobile apps change, every https origin
  // is, since an origin checked for the old apps may not serve files naming the new ones.
  const linksChanged = set.appLinks !== undefined && !sameAppLinks(set.appLinks, links);
  const checked = (set.allowedOrigins ?? row.allowedOrigins)
    .map((origin, index) => ({ origin, index }))
    .filter(({ origin }) => linksChanged || !row.allowedOrigins.includes(origin));
  if (set.allowedOrigins !== undefined || linksChanged)
    await checkAssociationFiles(config, checked, set.appLinks ?? links);
  let secrets = await providerSecrets(config, row);
  if (patch.providers !== undefined) {
    const merged = await mergeProviders(row, secrets, patch.providers);
    set.providers = merged.providers;
    secrets = merged.secrets;
    set.providerSecretsCiphertext =
      Object.keys(secrets).length > 0 ? await config.keyring.encrypt(JSON.stringify(secrets)) : null;
  }
  return { set, secrets };
}

/**
 * Applies a PATCH; refuses the whole change (400, nothing written) if any part is invalid. The
 * write goes over the settings version it read, with its Activity event: when another PATCH
 * landed meanwhile, the app is read again and this one merged onto it, so neither is lost.
 */
export async function updateAuthApp(
  ctx: RequestContext,
  { app: read, patch }: { app: AuthAppRow; patch: AuthAppPatch },
): Promise<AuthAppBody> {
  const { http: db, config } = ctx;
  let row = read;
  for (let attempt = 1; ; attempt++) {
    const { set, secrets } = await patchedColumns(config, row, patch);
    if (Object.keys(set).length === 0) return toAuthAppBody(config, row, secrets);
    const version = row.settingsVersion + 1;
    const [updated] = (await runGuarded(db, [
      db
        .update(authApps)
        .set({ ...set, settingsVersion: version })
        .where(and(eq(authApps.id, row.id), eq(authApps.settingsVersion, row.settingsVersion)))
        .returning(),
      activityQuery(
        db,
        ctx.activity,
        {
          action: 'auth_app.update',
          target: { type: 'auth_app', id: row.id, name: row.appId },
          projectId: row.projectId,
          // What changed, by name: a provider's secret is never named with its value.
          details: { changed: Object.keys(patch).sort(), enabled: patch.enabled },
        },
        sql`exists (select 1 from auth_apps where id = ${row.id}::uuid and settings_version = ${version})`,
      ),
    ])) as [AuthAppRow[], unknown];
    const saved = updated[0];
    if (saved) {
      await afterSettingsWrite(ctx, row, patch);
      return toAuthAppBody(config, saved, secrets);
    }
    // A short random pause, so writers that collided do not collide again in step.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    const again = attempt < PATCH_ATTEMPTS ? await findAuthApp(db, row.id) : undefined;
    if (!again) throw new ApiError('CONFLICT', 'the auth app changed while this request ran; retry');
    row = again;
  }
}

/** Codes are redeemed without Postgres: a disabled app's outstanding codes are blocked where they live. */
async function afterSettingsWrite(ctx: RequestContext, row: AuthAppRow, patch: AuthAppPatch): Promise<void> {
  if (patch.enabled === undefined) return;
  const store = patch.enabled
    ? unblockCodes(ctx, { slug: row.appId, userId: null })
    : blockCodes(ctx, { slug: row.appId, userId: null, reason: 'app_disabled' });
  await store.catch(() => {
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      'the change is saved but sign-ins in progress could not be updated yet; repeat the request',
    );
  });
}
