/** Project API keys (CONTRACT §3). Managed site keys are listed and marked, never shown. */

import { and, eq, isNull } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { apiKeys, authApps } from '../../db/schema';
import { type AppEnv, getDb, getHttpDb } from '../context';
import { sha256Hex } from '../lib/crypto';
import { badRequest, notFound } from '../lib/errors';
import { newId, newSecret } from '../lib/ids';
import { apiRoute, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { replaceManagedKey } from '../services/credentials/managed-key';
import { enqueueDeliveries } from '../services/delivery/deliveries';
import { projectIdOf } from '../services/principal';
import { access, iso, ProjectParam, readsCaller, readWithCaller, requireUuid } from './shared';

const CapabilitiesSchema = z
  .object({
    storage: z.boolean().optional(),
    databases: z.boolean().optional(),
    auth: z.array(z.string()).max(100).optional(),
  })
  .strict()
  .openapi('Capabilities');

const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    capabilities: CapabilitiesSchema,
    managed: z.boolean(),
    site_id: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('ApiKey');

/** Resolves auth apps named by id or app_id to their ids; 400 unless every one is of this project. */
async function resolveAuthApps(db: Queryable, projectId: string, refs: string[]): Promise<string[]> {
  if (refs.length === 0) return [];
  const rows = await db
    .select({ id: authApps.id, appId: authApps.appId })
    .from(authApps)
    .where(eq(authApps.projectId, projectId));
  const ids = refs.map((ref) => rows.find((r) => r.id === ref.toLowerCase() || r.appId === ref)?.id);
  if (ids.some((id) => id === undefined)) {
    throw badRequest(
      'capabilities.auth: every entry must be an auth app of this project',
      'capabilities.auth',
    );
  }
  return [...new Set(ids as string[])];
}

export const apiKeysRoutes = routeGroup<AppEnv>();

apiKeysRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/api-keys',
    tags: ['api-keys'],
    summary: 'Create a project API key (shown once)',
    request: {
      params: ProjectParam,
      ...jsonBody(
        z.object({ name: z.string().trim().min(1).max(100), capabilities: CapabilitiesSchema }).strict(),
      ),
    },
    responses: {
      201: json(
        z.object({ id: z.string(), name: z.string(), key: z.string(), capabilities: CapabilitiesSchema }),
        'the key',
      ),
    },
  }),
  async (c) => {
    const { project } = await access(c, c.req.valid('param').id, 'admin');
    const { name, capabilities } = c.req.valid('json');
    const db = getHttpDb(c);
    const auth = await resolveAuthApps(db, project.id, capabilities.auth ?? []);
    const caps = {
      ...(capabilities.storage !== undefined ? { storage: capabilities.storage } : {}),
      ...(capabilities.databases !== undefined ? { databases: capabilities.databases } : {}),
      ...(auth.length > 0 ? { auth } : {}),
    };
    const key = newSecret('apiKey');
    const id = newId();
    await db
      .insert(apiKeys)
      .values({ id, projectId: project.id, name, keyHash: await sha256Hex(key), capabilities: caps });
    return c.json({ id, name, key, capabilities: caps }, 201);
  },
);

apiKeysRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/api-keys',
    tags: ['api-keys'],
    summary: "The project's live API keys, managed site keys included and marked (values never shown)",
    middleware: [readsCaller],
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ api_keys: z.array(ApiKeySchema) }), 'the keys') },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    const [rows] = await readWithCaller(c, [
      getHttpDb(c)
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.projectId, projectIdOf(ref)), isNull(apiKeys.revokedAt)))
        .orderBy(apiKeys.createdAt),
    ]);
    await access(c, ref, 'admin');
    return c.json(
      {
        api_keys: rows.map((k) => ({
          id: k.id,
          name: k.name,
          capabilities: k.capabilities,
          managed: k.siteId !== null,
          site_id: k.siteId,
          created_at: iso(k.createdAt),
        })),
      },
      200,
    );
  },
);

apiKeysRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/api-keys/{keyId}',
    tags: ['api-keys'],
    summary: 'Revoke an API key',
    description:
      "A site's managed key (PLATFORM_API_KEY) is replaced at once by a new one, which the site receives by live patch: its connections still imply it.",
    request: { params: ProjectParam.extend({ keyId: z.string() }) },
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'revoked') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { project } = await access(c, params.id, 'admin');
    const keyId = requireUuid(params.keyId, 'API key');
    const [managed] = await getHttpDb(c)
      .select({ id: apiKeys.id, projectId: apiKeys.projectId, siteId: apiKeys.siteId })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, project.id), isNull(apiKeys.revokedAt)));
    if (managed?.siteId) {
      const site = { ...managed, siteId: managed.siteId };
      const deliveryIds = await getDb(c).transaction((tx) => replaceManagedKey(tx, c.get('config'), site));
      if (deliveryIds === null) throw notFound('API key');
      await enqueueDeliveries(c.get('services').queue, deliveryIds);
      return c.json({ revoked: true as const }, 200);
    }
    const revoked = await getHttpDb(c)
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, project.id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (revoked.length === 0) throw notFound('API key');
    return c.json({ revoked: true as const }, 200);
  },
);
