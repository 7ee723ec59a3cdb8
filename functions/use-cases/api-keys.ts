/** Project API keys: created with capabilities, listed without values, revoked (managed ones replaced). */
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { type HttpDb, runBatch } from '../../db/client';
import { type ApiKeyCapabilities, apiKeys, authApps } from '../../db/schema';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { isUuid, newId, newSecret } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { activityQuery } from './activity';
import { replaceManagedKey } from './credentials/managed-key';
import { enqueueDeliveries } from './delivery/deliveries';

/** Capabilities as a request asks for them: auth apps named by id or app_id. */
export interface RequestedCapabilities {
  storage?: boolean;
  databases?: boolean;
  auth?: string[];
}

/** Resolves auth apps named by id or app_id to their ids; 400 unless every one is of this project. */
async function resolveAuthApps(db: HttpDb, projectId: string, refs: string[]): Promise<string[]> {
  if (refs.length === 0) return [];
  const rows = await db
    .select({ id: authApps.id, appId: authApps.appId })
    .from(authApps)
    .where(eq(authApps.projectId, projectId));
  const ids = refs.map((ref) => rows.find((r) => r.id === ref.toLowerCase() || r.appId === ref)?.id);
  if (ids.some((id) => id === undefined)) {
    throw new ApiError(
      'BAD_REQUEST',
      'capabilities.auth: every entry must be an auth app of this project',
      'capabilities.auth',
    );
  }
  return [...new Set(ids as string[])];
}

/** Creates a project API key; its value is returned once and only its hash is kept. */
export async function createApiKey(
  ctx: RequestContext,
  { projectId, name, capabilities }: { projectId: string; name: string; capabilities: RequestedCapabilities },
): Promise<{ id: string; key: string; capabilities: ApiKeyCapabilities }> {
  const db = ctx.http;
  const auth = await resolveAuthApps(db, projectId, capabilities.auth ?? []);
  const caps = {
    ...(capabilities.storage !== undefined ? { storage: capabilities.storage } : {}),
    ...(capabilities.databases !== undefined ? { databases: capabilities.databases } : {}),
    ...(auth.length > 0 ? { auth } : {}),
  };
  const key = newSecret('apiKey');
  const id = newId();
  const event = {
    action: 'api_key.create',
    target: { type: 'api_key', id, name },
    projectId,
    details: { storage: caps.storage, databases: caps.databases, auth: caps.auth },
  };
  await runBatch(db, [
    db.insert(apiKeys).values({ id, projectId, name, keyHash: await sha256Hex(key), capabilities: caps }),
    activityQuery(db, ctx.activity, event),
  ]);
  return { id, key, capabilities: caps };
}

/** The project's live keys, managed site keys included, oldest first: a query not yet sent. */
export function listApiKeys(db: HttpDb, projectId: SQL | string) {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.projectId, projectId), isNull(apiKeys.revokedAt)))
    .orderBy(apiKeys.createdAt);
}

/** The live key `keyId` of project `projectId` (SQL when sent with the caller's lookup): a query not yet sent. */
export function liveKeyQuery(db: HttpDb, projectId: SQL | string, keyId: string) {
  return db
    .select({ id: apiKeys.id, projectId: apiKeys.projectId, siteId: apiKeys.siteId })
    .from(apiKeys)
    .where(
      and(
        isUuid(keyId) ? eq(apiKeys.id, keyId.toLowerCase()) : sql`false`,
        eq(apiKeys.projectId, projectId),
        isNull(apiKeys.revokedAt),
      ),
    );
}

/**
 * Revokes a live key of the project (`found`: the answer of {@link liveKeyQuery}); 404 when
 * there is none by that id. A site's managed key is replaced at once by a new one, which the
 * site receives by live patch. A plain key costs one statement.
 */
export async function revokeApiKey(
  ctx: RequestContext,
  projectId: string,
  keyId: string,
  found: Array<{ id: string; projectId: string; siteId: string | null }>,
): Promise<void> {
  const [managed] = found;
  const event = (managedBy: string | null) => ({
    action: 'api_key.revoke',
    target: { type: 'api_key', id: keyId, name: sql`select name from api_keys where id = ${keyId}::uuid` },
    projectId,
    siteId: managedBy,
    details: { managed: managedBy !== null },
  });
  if (managed?.siteId) {
    const site = { ...managed, siteId: managed.siteId };
    const deliveryIds = await ctx.db.transaction(async (tx) => {
      const ids = await replaceManagedKey(tx, ctx.config, site);
      if (ids !== null) await activityQuery(tx, ctx.activity, event(site.siteId));
      return ids;
    });
    if (deliveryIds === null) throw new ApiError('NOT_FOUND', 'API key not found');
    await enqueueDeliveries(ctx, deliveryIds);
    return;
  }
  if (!managed) throw new ApiError('NOT_FOUND', 'API key not found');
  const live = and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, projectId), isNull(apiKeys.revokedAt));
  const [, revoked] = await runBatch(ctx.http, [
    activityQuery(ctx.http, ctx.activity, event(null), sql`exists (select 1 from api_keys where ${live})`),
    ctx.http.update(apiKeys).set({ revokedAt: new Date() }).where(live).returning({ id: apiKeys.id }),
  ]);
  if ((revoked as unknown[]).length === 0) throw new ApiError('NOT_FOUND', 'API key not found');
}
