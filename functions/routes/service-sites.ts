/**
 * The older per-service routes, GET and PUT /databases/:id/sites and /storage/:id/sites: one
 * service's connections across the project's sites, authorised through the service's project.
 */
import type { Role } from '../domain/roles';
import { type CredentialKindName, kindOf } from '../kinds/registry';
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import type { Membership } from '../use-cases/caller/api-caller';
import { type ReadScope, readMany } from '../use-cases/caller/declared-reads';
import { replaceServiceSites } from '../use-cases/connections/connection-writes';
import type { DesiredSite } from '../use-cases/connections/service-plans';
import {
  decodeServiceSites,
  decodeServiceWrite,
  serviceSitesQueries,
  serviceWriteQueries,
} from '../use-cases/connections/service-sites-read';
import { requireRole } from '../use-cases/connections/site-access';
import { kindSchemaName, levelEnum, levelOfKind, readOnlyFields } from './connection-schemas';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { requestContext } from './shared';

/** A site connected to a `kind` service, at one of that kind's levels. */
const sitesBody = (kind: CredentialKindName) =>
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
const putBody = (kind: CredentialKindName) =>
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

/**
 * The service, found live, with the caller's `role` on its project: these paths name no project,
 * so the caller's membership is read with the service (404 hides others' services).
 */
function authorised<F extends { membership: Membership }>(
  kind: CredentialKindName,
  found: F | undefined,
  role: Role,
): F {
  const held = found?.membership.role;
  if (!found || !held) throw new ApiError('NOT_FOUND', `${kindOf(kind).word} not found`);
  requireRole(held, role);
  return found;
}

type Rows = { rows: unknown[] };

/** The GET's one read: the live service, the caller's role in its project and its connected sites, at read. */
const sitesRead = (kind: CredentialKindName) =>
  declareReads({ role: 'account' }, ({ http, path, account }) => ({
    found: readMany(serviceSitesQueries(http, kind, path.id ?? '', account), ([service, connections]) =>
      authorised(kind, decodeServiceSites(kind, service as Rows, connections as Rows), 'read'),
    ),
  }));

/**
 * PUT's one read, with the caller's lookup the first time: the live service and the caller's
 * role in its project, the project's sites, connections and their states, the service's row;
 * then the caller's role checked (404 hides others' services). An invalid request reads it too,
 * for its 404 before its 400.
 */
const writeRead = (kind: CredentialKindName) => {
  const reads = ({ http, path, account }: ReadScope) => ({
    write: readMany(serviceWriteQueries(http, kind, path.id ?? '', account), (answers) => {
      const { found, scope, read } = decodeServiceWrite(kind, answers);
      return { ...authorised(kind, found, 'write'), scope, read };
    }),
  });
  return declareInputReads({ role: 'account' }, (scope, _: undefined) => reads(scope), reads);
};

export const serviceSitesRoutes = declaredRoutes();

for (const [prefix, kind] of [
  ['databases', 'database'],
  ['storage', 'bucket'],
] as const) {
  const tags = [kindOf(kind).plural];
  const listing = sitesRead(kind);
  const writing = writeRead(kind);
  serviceSitesRoutes.openapi(
    apiRoute({
      method: 'get',
      path: `/${prefix}/{id}/sites`,
      tags,
      summary: `The sites connected to this ${kind} (older per-service route, same connections)`,
      middleware: listing.middleware,
      request: { params: Params },
      responses: { 200: json(sitesBody(kind), 'the connected sites') },
    }),
    async (c) => {
      return c.json({ sites: listing.of(c).found.sites }, 200);
    },
  );

  serviceSitesRoutes.openapi(
    apiRoute({
      method: 'put',
      path: `/${prefix}/{id}/sites`,
      tags,
      summary: `Replace the whole set of sites connected to this ${kind} (level optional, default as everywhere)`,
      middleware: writing.middleware,
      request: { params: Params, ...jsonBody(putBody(kind)) },
      responses: {
        200: json(sitesBody(kind), 'the connected sites after the write'),
        ...errorResponses(409, 503),
      },
    }),
    async (c) => {
      const { sites: desired } = c.req.valid('json');
      const readService = async () => (await writing.run(c, undefined)).write;
      const sites = await replaceServiceSites(requestContext(c), readService, desired);
      return c.json({ sites }, 200);
    },
  );
}
