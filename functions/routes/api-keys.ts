/** Project API keys (contract §3). Managed site keys are listed and marked, never shown. */

import { type AppEnv, getHttpDb } from '../context';
import { apiRoute, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { createApiKey, listApiKeys, liveKeyQuery, revokeApiKey } from '../services/api-keys';
import { projectIdOf } from '../services/caller/api-caller';
import {
  access,
  iso,
  ProjectParam,
  readsCaller,
  readWithCaller,
  requestContext,
  requireUuid,
} from './shared';

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
    const made = await createApiKey(requestContext(c), { projectId: project.id, name, capabilities });
    return c.json({ id: made.id, name, key: made.key, capabilities: made.capabilities }, 201);
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
    const [rows] = await readWithCaller(c, [listApiKeys(getHttpDb(c), projectIdOf(ref))]);
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
    middleware: [readsCaller],
    request: { params: ProjectParam.extend({ keyId: z.string() }) },
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'revoked') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const [found] = await readWithCaller(c, [
      liveKeyQuery(getHttpDb(c), projectIdOf(params.id), params.keyId),
    ]);
    const { project } = await access(c, params.id, 'admin');
    const keyId = requireUuid(params.keyId, 'API key');
    await revokeApiKey(requestContext(c), project.id, keyId, found);
    return c.json({ revoked: true as const }, 200);
  },
);
