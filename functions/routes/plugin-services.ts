/**
 * The routes of the services of every kind a plugin registers (kinds/registry.ts `registerKind`),
 * made from its descriptor under its path segment (its plural, hyphenated): list, create, read
 * and delete, behind the same gates, roles, errors and initial connection as every service.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import type { Kind } from '../domain/levels';
import { kindListKey, kindSegment, type PluginKind, pluginKinds } from '../kinds/registry';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { read, readMany } from '../use-cases/caller/declared-reads';
import {
  removeService,
  serviceHoldersFrom,
  serviceHoldersQueries,
} from '../use-cases/connections/service-removal';
import { initialSiteFrom, initialSiteQueries } from '../use-cases/resources/new-service-write';
import {
  createPluginService,
  deletePluginService,
  pluginRowsOf,
  pluginServiceOf,
  pluginServiceQuery,
  pluginServicesQuery,
  shownService,
} from '../use-cases/resources/plugin-services';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { ProjectParam, requestContext, requireUuid, ServiceName } from './shared';

/** The routes of plugin kind `kind`'s services, added to `group`. */
function addKindRoutes(group: OpenAPIHono<AppEnv>, kind: PluginKind): void {
  const segment = kindSegment(kind.name as Kind);
  const key = kindListKey(kind.name as Kind);
  const tags = [segment];
  const shown = Object.fromEntries(
    kind.shown.map((c) => [c, z.union([z.string(), z.number(), z.boolean(), z.null()])]),
  );
  const Service = z.object({ id: z.string(), name: z.string(), ...shown, created_at: z.string() });
  const OneParams = ProjectParam.extend({ serviceId: z.string() });

  const listing = declareReads({ role: 'read' }, ({ http, project }) => ({
    rows: read(pluginServicesQuery(http, kind, project), pluginRowsOf),
  }));
  group.openapi(
    apiRoute({
      method: 'get',
      path: `/projects/{id}/${segment}`,
      tags,
      summary: `The project's ${kind.plural} (read role)`,
      middleware: listing.middleware,
      request: { params: ProjectParam },
      responses: { 200: json(z.object({ [key]: z.array(Service) }), `the ${kind.plural}`) },
    }),
    async (c) => c.json({ [key]: listing.of(c).rows.map(shownService) }, 200),
  );

  const creation = declareReads({ role: 'write' }, ({ http, project }) => ({
    initial: readMany(initialSiteQueries(http, project), initialSiteFrom),
  }));
  group.openapi(
    apiRoute({
      method: 'post',
      path: `/projects/{id}/${segment}`,
      tags,
      summary: `Create a ${kind.word} (connected to the only site of a one-site project)`,
      middleware: creation.middleware,
      request: {
        params: ProjectParam,
        ...jsonBody(z.object({ name: ServiceName, ...kind.creation.fields }).strict()),
      },
      responses: { 201: json(Service, `the ${kind.word}`), ...errorResponses(409) },
    }),
    async (c) => {
      const { projectId, initial } = creation.of(c);
      const input = c.req.valid('json') as { name: string } & Record<string, unknown>;
      return c.json(await createPluginService(requestContext(c), kind, projectId, input, initial), 201);
    },
  );

  const one = declareReads({ role: 'read' }, ({ http, project, path }) => ({
    rows: read(pluginServiceQuery(http, kind, project, path.serviceId ?? ''), (answer: unknown) => answer),
  }));
  group.openapi(
    apiRoute({
      method: 'get',
      path: `/projects/{id}/${segment}/{serviceId}`,
      tags,
      summary: `One ${kind.word}`,
      middleware: one.middleware,
      request: { params: OneParams },
      responses: { 200: json(Service, `the ${kind.word}`) },
    }),
    async (c) => c.json(shownService(pluginServiceOf(kind, one.of(c).rows)), 200),
  );

  const removal = declareInputReads({ role: 'write' }, ({ http, project }, id: string) => ({
    rows: read(pluginServiceQuery(http, kind, project, id), (answer: unknown) => answer),
    holders: readMany(serviceHoldersQueries(http, project, kind.name as Kind, id), serviceHoldersFrom),
  }));
  group.openapi(
    apiRoute({
      method: 'delete',
      path: `/projects/{id}/${segment}/{serviceId}`,
      tags,
      summary: `Delete a ${kind.word} and its connections`,
      middleware: removal.middleware,
      request: { params: OneParams },
      responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted'), ...errorResponses(409) },
    }),
    async (c) => {
      const id = c.req.param('serviceId') ?? '';
      // Each attempt reads once with the caller: the service, the sites holding it and their connections.
      const readOnce = async () => {
        const { rows, holders } = await removal.run(c, id);
        requireUuid(id, kind.word);
        return { row: pluginServiceOf(kind, rows), extra: undefined, holders };
      };
      await removeService(requestContext(c), readOnce, (ctx, row, holders) =>
        deletePluginService(ctx, kind, row, holders),
      );
      return c.json({ deleted: true as const }, 200);
    },
  );
}

/** The routes of the services of every plugin kind registered now (none: an empty group). */
export function pluginServicesRoutes(): OpenAPIHono<AppEnv> {
  const group = declaredRoutes();
  for (const kind of pluginKinds()) addKindRoutes(group, kind);
  return group;
}
