/** Project API keys (contract §3). Managed site keys are listed and marked, never shown. */

import { apiRoute, json, jsonBody, z } from '../lib/openapi';
import { createApiKey, listApiKeys, liveKeyQuery, revokeApiKey } from '../use-cases/api-keys';
import { rowsRead } from '../use-cases/caller/declared-reads';
import { declaredRoutes, declareReads } from './declared-reads';
import { iso, ProjectParam, projectListingRoute, requestContext, requireUuid } from './shared';

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

export const apiKeysRoutes = declaredRoutes();

/** The project, at admin. */
const admin = declareReads({ role: 'admin' });
/** The project's live keys, at admin. */
const listing = declareReads({ role: 'admin' }, ({ http, project }) => ({
  rows: rowsRead(listApiKeys(http, project)),
}));
/** The live key the path names, at admin. */
const keyRead = declareReads({ role: 'admin' }, ({ http, path, project }) => ({
  found: rowsRead(liveKeyQuery(http, project, path.keyId ?? '')),
}));

apiKeysRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/api-keys',
    tags: ['api-keys'],
    summary: 'Create a project API key (shown once)',
    middleware: admin.middleware,
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
    const { projectId } = admin.of(c);
    const { name, capabilities } = c.req.valid('json');
    const made = await createApiKey(requestContext(c), { projectId, name, capabilities });
    return c.json({ id: made.id, name, key: made.key, capabilities: made.capabilities }, 201);
  },
);

apiKeysRoutes.openapi(
  projectListingRoute({
    path: '/projects/{id}/api-keys',
    tag: 'api-keys',
    summary: "The project's live API keys, managed site keys included and marked (values never shown)",
    middleware: listing.middleware,
    key: 'api_keys',
    item: ApiKeySchema,
    listed: 'the keys',
  }),
  async (c) => {
    return c.json(
      {
        api_keys: listing.of(c).rows.map((k) => ({
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
    middleware: keyRead.middleware,
    request: { params: ProjectParam.extend({ keyId: z.string() }) },
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'revoked') },
  }),
  async (c) => {
    const { projectId, found } = keyRead.of(c);
    const keyId = requireUuid(c.req.valid('param').keyId, 'API key');
    await revokeApiKey(requestContext(c), projectId, keyId, found);
    return c.json({ revoked: true as const }, 200);
  },
);
