/** Databases of a project (contract §4). */

import { type AppEnv, getDb, getHttpDb } from '../context';
import { SERVICE_NAME_RE } from '../domain/names';
import { engineNames, engineOf, isEngine } from '../kinds/registry';
import { log } from '../lib/logger';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { projectIdOf } from '../services/caller/api-caller';
import { retryOnConcurrentChange } from '../services/connections/retry';
import { serviceHoldersFrom, serviceHoldersQueries } from '../services/connections/service-removal';
import {
  createDatabase,
  type DatabaseRow,
  databaseCreationQueries,
  databaseOf,
  databaseQuery,
  deleteDatabase,
  listDatabases,
  setDatabaseRunning,
} from '../services/resources/databases';
import { creationReadFrom } from '../services/resources/new-service-write';
import { loginNamesFrom, serviceLoginNamesQuery } from '../services/resources/principal-removal';
import { declareReads, rowsRead } from './reads';
import {
  access,
  callerBeforeBody,
  callerBeforeMalformedJson,
  iso,
  ProjectParam,
  readsCaller,
  readWithCaller,
  requestContext,
  requireUuid,
} from './shared';

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

const toDatabase = (d: DatabaseRow) => ({
  id: d.id,
  name: d.name,
  engine: d.engine,
  replica_set: d.replicaSet,
  status: d.status,
  created_at: iso(d.createdAt),
});

const DbParams = ProjectParam.extend({ dbId: z.string() });

export const databasesRoutes = routeGroup<AppEnv>();

databasesRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/databases',
    tags: ['databases'],
    summary: 'Create a database (connected to the only site of a one-site project)',
    middleware: [readsCaller, callerBeforeMalformedJson],
    request: {
      params: ProjectParam,
      ...jsonBody(
        z
          .object({
            name: z.string().regex(SERVICE_NAME_RE, '1 to 63 of a-z 0-9 - _, starting with a letter'),
            engine: EngineSchema,
            replica_set: z.boolean().optional(),
          })
          .strict(),
      ),
    },
    responses: { 201: json(DatabaseSchema, 'the database'), ...errorResponses(409, 503) },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    const body = c.req.valid('json');
    // One read with the caller: the project's databases (names) and its only site with its connections.
    const answers = await readWithCaller(c, databaseCreationQueries(getHttpDb(c), projectIdOf(ref)));
    const { project } = await access(c, ref, 'write');
    const row = await createDatabase(
      requestContext(c),
      project.id,
      {
        name: body.name,
        engine: body.engine,
        replicaSet: engineOf(body.engine).replicaSet(body.replica_set),
      },
      creationReadFrom<DatabaseRow>(answers),
    );
    return c.json(toDatabase(row), 201);
  },
  callerBeforeBody,
);

/** The project's databases, at read or for a key with the databases capability. */
const databasesRead = declareReads(
  'read',
  ({ http, project }) => ({ rows: rowsRead(listDatabases(http, project)) }),
  (caps) => caps.databases === true,
);

databasesRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/databases',
    tags: ['databases'],
    summary: "The project's databases (read role, or a key with the databases capability)",
    middleware: databasesRead.middleware,
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ databases: z.array(DatabaseSchema) }), 'the databases') },
  }),
  async (c) => c.json({ databases: databasesRead.of(c).rows.map(toDatabase) }, 200),
);

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
      middleware: [readsCaller],
      request: { params: DbParams },
      responses: { 200: json(DatabaseSchema, 'the database with its new status'), ...errorResponses(503) },
    }),
    async (c) => {
      const params = c.req.valid('param');
      const [found] = await readWithCaller(c, [
        databaseQuery(getHttpDb(c), projectIdOf(params.id), params.dbId),
      ]);
      const { project } = await access(c, params.id, 'write');
      requireUuid(params.dbId, 'database');
      const row = databaseOf(found);
      const ctx = requestContext(c);
      const updated = await setDatabaseRunning(ctx, { row, running: action === 'start' });
      if (action === 'start') {
        // Apps that connected while it was stopped get their own credentials now, by live patch
        // (the minute reconciler does it too, should this message be lost).
        await ctx.queue
          .send({
            type: 'switch-credentials',
            projectId: project.id,
            includeLegacy: false,
          })
          .catch((err: Error) => log.error('queueing the switch after a start failed:', err));
      }
      return c.json(toDatabase(updated), 200);
    },
  );
}

databasesRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/databases/{dbId}',
    tags: ['databases'],
    summary: 'Delete a database and its connections',
    middleware: [readsCaller],
    request: { params: DbParams },
    responses: {
      200: json(z.object({ deleted: z.literal(true) }), 'deleted'),
      ...errorResponses(409, 503),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const db = getHttpDb(c);
    const projectId = projectIdOf(params.id);
    await retryOnConcurrentChange(getDb(c), async () => {
      // One read with the caller: the database, the logins it holds, the sites holding it and their connections.
      const [found, logins, ...holders] = await readWithCaller(c, [
        databaseQuery(db, projectId, params.dbId),
        serviceLoginNamesQuery(db, params.dbId),
        ...serviceHoldersQueries(db, projectId, 'database', params.dbId),
      ]);
      await access(c, params.id, 'write');
      requireUuid(params.dbId, 'database');
      const row = databaseOf(found);
      await deleteDatabase(requestContext(c), row, serviceHoldersFrom(holders), loginNamesFrom(logins));
    });
    return c.json({ deleted: true as const }, 200);
  },
);
