/**
 * The older per-service routes, GET and PUT /databases/:id/sites and /storage/:id/sites: one
 * service's connections across the project's sites, authorised through the service's project.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { buckets, databases } from '../../db/schema';
import { type AppEnv, getHttpDb } from '../context';
import type { Role } from '../domain/roles';
import { familyOf } from '../domain/variables';
import { ApiError, notFound } from '../lib/errors';
import { isUuid } from '../lib/ids';
import { apiRoute, errorResponses, json, jsonBody, pathBeforeBody, routeGroup, z } from '../lib/openapi';
import { applyPlan } from '../services/connections/apply';
import type { ResourceInfo } from '../services/connections/model';
import {
  planServiceSites,
  readServiceScope,
  serviceSites,
  serviceSitesAfter,
} from '../services/connections/service-plans';
import { connectionDeps, LevelSchema, readOnlyFields, retryOnConcurrentChange } from './connection-schemas';
import { access } from './shared';

const ServiceSiteSchema = z
  .object({
    site_id: z.string(),
    site_slug: z.string(),
    level: z.string(),
    env_names: z.array(z.string()),
    created_at: z.string(),
  })
  .openapi('ServiceSite');
const SitesBody = z.object({ sites: z.array(ServiceSiteSchema) });
const PutBody = z
  .object({
    sites: z
      .array(
        z
          .object({
            site_id: z.string().max(100),
            level: LevelSchema.optional(),
            ...readOnlyFields('site_slug', 'env_names', 'created_at'),
          })
          .strict(),
      )
      .max(1000),
  })
  .strict();
const Params = z.object({ id: z.string() });

type ServiceKind = 'database' | 'bucket';

/** Finds the live service and checks the caller's role on its project (404 hides others' services). */
async function loadService(c: Context<AppEnv>, kind: ServiceKind, id: string, role: Role) {
  const what = kind === 'database' ? 'database' : 'bucket';
  if (!isUuid(id)) throw notFound(what);
  const where = (t: typeof databases | typeof buckets) =>
    and(eq(t.id, id.toLowerCase()), isNull(t.deletedAt));
  const [row] =
    kind === 'database'
      ? await getHttpDb(c)
          .select({
            id: databases.id,
            projectId: databases.projectId,
            name: databases.name,
            createdAt: databases.createdAt,
            engine: databases.engine,
          })
          .from(databases)
          .where(where(databases))
      : await getHttpDb(c)
          .select({
            id: buckets.id,
            projectId: buckets.projectId,
            name: buckets.name,
            createdAt: buckets.createdAt,
            engine: sql<null>`null`,
          })
          .from(buckets)
          .where(where(buckets));
  if (!row) throw notFound(what);
  const engine = row.engine;
  try {
    await access(c, row.projectId, role);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw notFound(what);
    throw err;
  }
  const resource: ResourceInfo = {
    kind,
    id: row.id,
    name: row.name,
    engine,
    family: familyOf(kind, engine),
    available: true,
    createdAt: row.createdAt,
  };
  return { resource, projectId: row.projectId };
}

export const serviceSitesRoutes = routeGroup<AppEnv>();

for (const [prefix, kind] of [
  ['databases', 'database'],
  ['storage', 'bucket'],
] as const) {
  const tags = [kind === 'database' ? 'databases' : 'buckets'];
  serviceSitesRoutes.openapi(
    apiRoute({
      method: 'get',
      path: `/${prefix}/{id}/sites`,
      tags,
      summary: `The sites connected to this ${kind} (older per-service route, same connections)`,
      request: { params: Params },
      responses: { 200: json(SitesBody, 'the connected sites') },
    }),
    async (c) => {
      const { resource, projectId } = await loadService(c, kind, c.req.valid('param').id, 'read');
      return c.json({ sites: await serviceSites(getHttpDb(c), resource, projectId) }, 200);
    },
  );

  serviceSitesRoutes.openapi(
    apiRoute({
      method: 'put',
      path: `/${prefix}/{id}/sites`,
      tags,
      summary: `Replace the whole set of sites connected to this ${kind} (level optional, default as everywhere)`,
      request: { params: Params, ...jsonBody(PutBody) },
      responses: { 200: json(SitesBody, 'the connected sites after the write'), ...errorResponses(409, 503) },
    }),
    async (c) => {
      const id = c.req.valid('param').id;
      const { sites: desired } = c.req.valid('json');
      const result = await retryOnConcurrentChange(c, async () => {
        const { resource, projectId } = await loadService(c, kind, id, 'write');
        const scope = await readServiceScope(getHttpDb(c), projectId);
        const plan = planServiceSites(projectId, resource, scope, desired);
        const written = await applyPlan(connectionDeps(c), plan);
        return serviceSitesAfter(plan, resource, written.inserted);
      });
      return c.json({ sites: result }, 200);
    },
    pathBeforeBody<AppEnv>((c) => loadService(c, kind, c.req.param('id') ?? '', 'write')),
  );
}
