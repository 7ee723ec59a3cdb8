/** Databases of a project (contract §4). */

import { engineNames, engineOf, isEngine } from '../kinds/registry';
import { log } from '../lib/logger';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { read } from '../use-cases/caller/declared-reads';
import {
  createDatabase,
  type DatabaseRow,
  databaseCreationQueries,
  databaseOf,
  databaseQuery,
  deleteDatabase,
  listDatabases,
  setDatabaseRunning,
} from '../use-cases/resources/databases';
import { loginNamesFrom, serviceLoginNamesQuery } from '../use-cases/resources/principal-removal';
import { declaredRoutes, declareReads } from './declared-reads';
import { creationRead, listingRoute, removalRoute, type ServiceRoutes } from './service-routes';
import { iso, ProjectParam, requestContext, ServiceName } from './shared';

/** A registered engine's name (kinds/registry.ts); the document lists the engines registered at start. */
const EngineSchema = z
  .string()
  .refine(isEngine, { message: `one of ${engineNames().join(', ')}` })
  .openapi({ enum: engineNames() });

const DatabaseSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    engine: EngineSchema,
    replica_set: z.boolean(),
    status: z.enum(['running', 'stopped']),
    created_at: z.string(),
  })
  .openapi('Database');

const databases: ServiceRoutes<DatabaseRow, z.infer<typeof DatabaseSchema>, string[]> = {
  kind: 'database',
  plural: 'databases',
  param: 'dbId',
  schema: DatabaseSchema,
  toJson: (d) => ({
    id: d.id,
    name: d.name,
    engine: d.engine,
    replica_set: d.replicaSet,
    status: d.status,
    created_at: iso(d.createdAt),
  }),
  keys: (caps) => caps.databases === true,
  listSummary: "The project's databases (read role, or a key with the databases capability)",
  list: listDatabases,
  one: databaseQuery,
  rowOf: databaseOf,
  removalRead: (http, id) => read(serviceLoginNamesQuery(http, id), loginNamesFrom),
  remove: deleteDatabase,
  removalErrors: [409, 503],
};
const toDatabase = databases.toJson;

const DbParams = ProjectParam.extend({ dbId: z.string() });

export const databasesRoutes = declaredRoutes();

/** The project's databases (names) and its only site with its connections, at write. */
const creation = creationRead<DatabaseRow>(databaseCreationQueries);
/** The database the path names, at write. */
const databaseRead = declareReads({ role: 'write' }, ({ http, path, project }) => ({
  row: read(databaseQuery(http, project, path.dbId ?? ''), databaseOf),
}));

databasesRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/databases',
    tags: ['databases'],
    summary: 'Create a database (connected to the only site of a one-site project)',
    description:
      '409 NAME_TAKEN for a name in use; 409 LIMIT_REACHED when the project already holds MAX_DATABASES_PER_PROJECT (10) live databases; 503 with nothing changed when the cluster cannot be reached.',
    middleware: creation.middleware,
    request: {
      params: ProjectParam,
      ...jsonBody(
        z
          .object({
            name: ServiceName,
            engine: EngineSchema,
            replica_set: z.boolean().optional(),
          })
          .strict(),
      ),
    },
    responses: { 201: json(DatabaseSchema, 'the database'), ...errorResponses(409, 503) },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const { projectId, creation: read } = creation.of(c);
    const row = await createDatabase(
      requestContext(c),
      projectId,
      {
        name: body.name,
        engine: body.engine,
        replicaSet: engineOf(body.engine).replicaSet(body.replica_set),
      },
      read,
    );
    return c.json(toDatabase(row), 201);
  },
);

listingRoute(databasesRoutes, databases);

for (const action of ['stop', 'start'] as const) {
  databasesRoutes.openapi(
    apiRoute({
      method: 'post',
      path: `/projects/{id}/databases/{dbId}/${action}`,
      tags: ['databases'],
      summary: action === 'stop' ? 'Stop a database (refuses new logins)' : 'Start a stopped database',
      description:
        action === 'stop'
          ? "Apps connected while it is stopped get the database's shared login of their level (r_… or w_…, never the main user) until it runs again."
          : 'Apps connected while it was stopped switch to their own credentials within seconds, by live patch.',
      middleware: databaseRead.middleware,
      request: { params: DbParams },
      responses: { 200: json(DatabaseSchema, 'the database with its new status'), ...errorResponses(503) },
    }),
    async (c) => {
      const { projectId, row } = databaseRead.of(c);
      const ctx = requestContext(c);
      const updated = await setDatabaseRunning(ctx, { row, running: action === 'start' });
      if (action === 'start') {
        // Apps that connected while it was stopped get their own credentials now, by live patch
        // (the minute reconciler does it too, should this message be lost).
        await ctx.queue
          .send({
            type: 'switch-credentials',
            projectId,
            includeLegacy: false,
          })
          .catch((err: Error) => log.error('queueing the switch after a start failed:', err));
      }
      return c.json(toDatabase(updated), 200);
    },
  );
}

removalRoute(databasesRoutes, databases);
