/**
 * The older per-service routes, GET and PUT /databases/:id/sites and /storage/:id/sites: one
 * service's connections across the project's sites, authorised through the service's project.
 */
import type { Context } from 'hono';
import { type AppEnv, getDb, getHttpDb } from '../context';
import type { Role } from '../domain/roles';
import { kindOf } from '../kinds/registry';
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, pathBeforeBody, routeGroup, z } from '../lib/openapi';
import { applyPlan } from '../services/connections/apply';
import { retryOnConcurrentChange } from '../services/connections/retry';
import { type DesiredSite, planServiceSites, serviceSitesAfter } from '../services/connections/service-plans';
import {
  decodeServiceSites,
  decodeServiceWrite,
  serviceSitesQueries,
  serviceWriteQueries,
} from '../services/connections/service-sites-read';
import { kindSchemaName, levelEnum, levelOfKind, readOnlyFields } from './connection-schemas';
import {
  access,
  callerAccount,
  callerBeforeMalformedJson,
  readsCaller,
  readWithCaller,
  requestContext,
} from './shared';

/** A site connected to a `kind` service, at one of that kind's levels. */
const sitesBody = (kind: ServiceKind) =>
  z.object({
    sites: z.array(
      z
        .object({
          site_id: z.string(),
          site_slug: z.string(),
          level: levelEnum(kind),
          env_names: z.array(z.string()),
          created_at: z.string(),
        })
        .openapi(kindSchemaName(kind, 'Site')),
    ),
  });
/** The PUT body of a service of `kind`: each entry's level is one of that kind's. */
const putBody = (kind: ServiceKind) =>
  z
    .object({
      sites: z
        .array(
          z
            .object({
              site_id: z.string().max(100),
              level: levelOfKind(kind).optional(),
              ...readOnlyFields('site_slug', 'env_names', 'created_at'),
            })
            .strict()
            .transform(({ site_id, level }) => ({ site_id, kind, level }) as DesiredSite),
        )
        .max(1000),
    })
    .strict();
const Params = z.object({ id: z.string() });

type ServiceKind = 'database' | 'bucket';

/**
 * PUT's one read, with the caller's lookup when it is still to be made: the live service and the
 * caller's role in its project, the project's sites, connections and their states, the service's
 * row; then the caller's role checked (404 hides others' services).
 */
async function serviceForWrite(c: Context<AppEnv>, kind: ServiceKind, id: string) {
  const accountId = callerAccount(c);
  const answers = await readWithCaller(c, serviceWriteQueries(getHttpDb(c), kind, id, accountId));
  const { found, scope, read } = decodeServiceWrite(kind, answers);
  if (found) c.set('membership', found.membership);
  await authorise(c, kind, found?.projectId, 'write');
  const { resource, projectId } = found as NonNullable<typeof found>;
  return { resource, projectId, scope, read };
}

/** 404 unless the service was found live, then the caller's `role` on its project (404 hides others'). */
async function authorise(c: Context<AppEnv>, kind: ServiceKind, projectId: string | undefined, role: Role) {
  const what = kindOf(kind).word;
  if (!projectId) throw new ApiError('NOT_FOUND', `${what} not found`);
  try {
    await access(c, projectId, role);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new ApiError('NOT_FOUND', `${what} not found`);
    throw err;
  }
}

export const serviceSitesRoutes = routeGroup<AppEnv>();

for (const [prefix, kind] of [
  ['databases', 'database'],
  ['storage', 'bucket'],
] as const) {
  const tags = [kindOf(kind).plural];
  serviceSitesRoutes.openapi(
    apiRoute({
      method: 'get',
      path: `/${prefix}/{id}/sites`,
      tags,
      summary: `The sites connected to this ${kind} (older per-service route, same connections)`,
      middleware: [readsCaller],
      request: { params: Params },
      responses: { 200: json(sitesBody(kind), 'the connected sites') },
    }),
    async (c) => {
      const queries = serviceSitesQueries(getHttpDb(c), kind, c.req.valid('param').id, callerAccount(c));
      const [service, connections] = await readWithCaller(c, [...queries]);
      const found = decodeServiceSites(kind, service, connections);
      if (found) c.set('membership', found.membership);
      await authorise(c, kind, found?.projectId, 'read');
      return c.json({ sites: found?.sites ?? [] }, 200);
    },
  );

  serviceSitesRoutes.openapi(
    apiRoute({
      method: 'put',
      path: `/${prefix}/{id}/sites`,
      tags,
      summary: `Replace the whole set of sites connected to this ${kind} (level optional, default as everywhere)`,
      middleware: [readsCaller, callerBeforeMalformedJson],
      request: { params: Params, ...jsonBody(putBody(kind)) },
      responses: {
        200: json(sitesBody(kind), 'the connected sites after the write'),
        ...errorResponses(409, 503),
      },
    }),
    async (c) => {
      const id = c.req.valid('param').id;
      const { sites: desired } = c.req.valid('json');
      const result = await retryOnConcurrentChange(getDb(c), async () => {
        const { resource, projectId, scope, read } = await serviceForWrite(c, kind, id);
        const plan = planServiceSites(projectId, resource, scope, desired);
        const written = await applyPlan(requestContext(c), plan, read);
        return serviceSitesAfter(plan, resource, written.inserted);
      });
      return c.json({ sites: result }, 200);
    },
    pathBeforeBody<AppEnv>((c) => serviceForWrite(c, kind, c.req.param('id') ?? '')),
  );
}
