/**
 * The routes a project's databases and buckets share, each declared once: the listing (read
 * role, or a key with the kind's capability) and the removal (write role), and the creation's
 * one read. What differs is the kind's own queries and service calls.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import type { CredentialKindName } from '../kinds/registry';
import { apiRoute, errorResponses, json, z } from '../lib/openapi';
import type { BatchQuery } from '../use-cases/caller/api-caller';
import { type Read, type ReadScope, read, readMany } from '../use-cases/caller/declared-reads';
import type { ApiKeyCapabilities } from '../use-cases/caller/project-access';
import {
  type RemoveService,
  removeService,
  serviceHoldersFrom,
  serviceHoldersQueries,
} from '../use-cases/connections/service-removal';
import { creationReadFrom } from '../use-cases/resources/new-service-write';
import { declareInputReads, declareReads } from './declared-reads';
import { ProjectParam, requestContext, requireUuid } from './shared';

/** A kind of service a project holds, as its shared routes need it. */
export interface ServiceRoutes<Row, Out, Extra = undefined> {
  kind: CredentialKindName;
  /** Its path segment and the OpenAPI tag: `databases`, `buckets`. */
  plural: string;
  /** The path parameter of one service: `dbId`, `bucketId`. */
  param: string;
  /** Its answer's schema (named in the document). */
  schema: z.ZodType<Out>;
  toJson(row: Row): Out;
  /** Whether a project API key may list the kind. */
  keys(capabilities: ApiKeyCapabilities): boolean;
  listSummary: string;
  list(http: ReadScope['http'], project: ReadScope['project']): BatchQuery & PromiseLike<Row[]>;
  /** The live service `id` names, and how its rows become the one row (or its 404). */
  one(http: ReadScope['http'], project: ReadScope['project'], id: string): BatchQuery & PromiseLike<Row[]>;
  rowOf(rows: Row[]): Row;
  /** What else a removal reads of the service (a database's logins). */
  removalRead?: (http: ReadScope['http'], id: string) => Read<Extra>;
  remove: RemoveService<Row, Extra>;
  removalErrors: Array<409 | 503>;
}

/** The reads a new service's write makes with the caller: the kind's rows and the project's only site. */
export const creationRead = <Row>(
  queries: (http: ReadScope['http'], project: ReadScope['project']) => BatchQuery[],
) =>
  declareReads({ role: 'write' }, ({ http, project }) => ({
    creation: readMany(queries(http, project), (answers) => creationReadFrom<Row>(answers)),
  }));

/** The listing's route: the project's services of the kind. */
export function listingRoute<Row, Out, Extra>(
  group: OpenAPIHono<AppEnv>,
  spec: ServiceRoutes<Row, Out, Extra>,
) {
  const listing = declareReads({ role: 'read', keys: spec.keys }, ({ http, project }) => ({
    rows: read(spec.list(http, project), (rows: Row[]) => rows),
  }));
  group.openapi(
    apiRoute({
      method: 'get',
      path: `/projects/{id}/${spec.plural}`,
      tags: [spec.plural],
      summary: spec.listSummary,
      middleware: listing.middleware,
      request: { params: ProjectParam },
      responses: { 200: json(z.object({ [spec.plural]: z.array(spec.schema) }), `the ${spec.plural}`) },
    }),
    async (c) => c.json({ [spec.plural]: listing.of(c).rows.map(spec.toJson) }, 200),
  );
}

/** The removal's route: the service and its connections, retried on a concurrent change. */
export function removalRoute<Row, Out, Extra>(
  group: OpenAPIHono<AppEnv>,
  spec: ServiceRoutes<Row, Out, Extra>,
) {
  const Params = ProjectParam.extend({ [spec.param]: z.string() });
  const removal = declareInputReads({ role: 'write' }, ({ http, project }, id: string) => ({
    rows: read(spec.one(http, project, id), (rows: Row[]) => rows),
    extra: spec.removalRead?.(http, id) ?? readMany([], () => undefined as Extra),
    holders: readMany(serviceHoldersQueries(http, project, spec.kind, id), serviceHoldersFrom),
  }));
  group.openapi(
    apiRoute({
      method: 'delete',
      path: `/projects/{id}/${spec.plural}/{${spec.param}}`,
      tags: [spec.plural],
      summary: `Delete a ${spec.kind} and its connections`,
      middleware: removal.middleware,
      request: { params: Params },
      responses: {
        200: json(z.object({ deleted: z.literal(true) }), 'deleted'),
        ...errorResponses(...spec.removalErrors),
      },
    }),
    async (c) => {
      const id = c.req.param(spec.param) ?? '';
      // Each attempt reads once with the caller: the service, what else it holds, the sites holding it and their connections.
      const read = async () => {
        const { rows, extra, holders } = await removal.run(c, id);
        requireUuid(id, spec.kind);
        return { row: spec.rowOf(rows), extra, holders };
      };
      await removeService(requestContext(c), read, spec.remove);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
