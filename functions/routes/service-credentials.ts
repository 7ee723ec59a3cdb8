/** The service's own credentials (contract §7): a database's main user, a bucket's own key. Admin only. */
import type { AppEnv } from '../context';
import { isUuid } from '../lib/ids';
import { apiRoute, errorResponses, json, routeGroup, z } from '../lib/openapi';
import {
  bucketCredentials,
  databaseCredentials,
  rotateBucketKey,
  rotateDatabasePassword,
} from '../services/access/service-credentials';
import { bucketQuery } from '../services/resources/buckets';
import { databaseQuery } from '../services/resources/databases';
import { connectedSiteInputsQuery } from '../services/site-env/derive';
import { declareReads, rowsRead } from './reads';
import { ProjectParam, requestContext } from './shared';

const DatabaseCredentialsSchema = z
  .object({
    user: z.string().openapi({ description: 'the main user, u_…' }),
    password: z.string(),
    url: z.string().openapi({ description: 'as apps reach the cluster' }),
    external_url: z.string().openapi({ description: 'from outside the platform' }),
    pooled_url: z
      .string()
      .openapi({ description: 'through the connection pooler (MongoDB: the external URL)' }),
  })
  .openapi('DatabaseCredentials');

const BucketCredentialsSchema = z
  .object({
    access_key_id: z.string(),
    secret_access_key: z.string(),
    endpoint: z.string(),
    bucket: z.string(),
    region: z.string(),
  })
  .openapi('BucketCredentials');

const DbParams = ProjectParam.extend({ dbId: z.string() });
const BucketParams = ProjectParam.extend({ bucketId: z.string() });

/** The service's id in the path, or one naming nothing when it is not a uuid (its read then finds no row). */
const idOr = (id: string | undefined) =>
  id && isUuid(id) ? id.toLowerCase() : '00000000-0000-0000-0000-000000000000';

/** The database the path names, at admin. */
const databaseRead = declareReads('admin', ({ http, path, project }) => ({
  rows: rowsRead(databaseQuery(http, project, path.dbId ?? '')),
}));
/** The database the path names and the sites connected to it, at admin. */
const databaseHoldersRead = declareReads('admin', ({ http, path, project }) => ({
  rows: rowsRead(databaseQuery(http, project, path.dbId ?? '')),
  holders: rowsRead(connectedSiteInputsQuery(http, idOr(path.dbId))),
}));
/** The bucket the path names, at admin. */
const bucketRead = declareReads('admin', ({ http, path, project }) => ({
  rows: rowsRead(bucketQuery(http, project, path.bucketId ?? '')),
}));
/** The bucket the path names and the sites connected to it, at admin. */
const bucketHoldersRead = declareReads('admin', ({ http, path, project }) => ({
  rows: rowsRead(bucketQuery(http, project, path.bucketId ?? '')),
  holders: rowsRead(connectedSiteInputsQuery(http, idOr(path.bucketId))),
}));

export const serviceCredentialsRoutes = routeGroup<AppEnv>();

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/databases/{dbId}/credentials',
    tags: ['credentials'],
    summary: "The database's main user u_… with its password and URLs (admin)",
    middleware: databaseRead.middleware,
    request: { params: DbParams },
    responses: { 200: json(DatabaseCredentialsSchema, 'the main credentials (shown)') },
  }),
  async (c) => c.json(await databaseCredentials(requestContext(c), databaseRead.of(c).rows), 200),
);

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/databases/{dbId}/credentials/rotate',
    tags: ['credentials'],
    summary: "Give the database's main user a new password (admin)",
    middleware: databaseHoldersRead.middleware,
    description:
      "Apps' own credentials do not change. Apps handed the shared credential (standalone MongoDB, connected while the database was stopped, apps from before per-connection credentials) get the new password by live patch, reason `credential`. 503 with nothing changed when the cluster or Atlas cannot be reached; 409 when another rotation of the database stored its password at the same time (the cluster keeps that one).",
    request: { params: DbParams },
    responses: {
      200: json(DatabaseCredentialsSchema, 'the new main credentials (shown)'),
      ...errorResponses(409, 503),
    },
  }),
  async (c) => {
    const { rows, holders } = databaseHoldersRead.of(c);
    return c.json(await rotateDatabasePassword(requestContext(c), rows, holders.rows), 200);
  },
);

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/buckets/{bucketId}/credentials',
    tags: ['credentials'],
    summary: "The bucket's own key (admin)",
    middleware: bucketRead.middleware,
    request: { params: BucketParams },
    responses: { 200: json(BucketCredentialsSchema, 'the bucket key (shown)') },
  }),
  async (c) => c.json(await bucketCredentials(requestContext(c), bucketRead.of(c).rows), 200),
);

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/buckets/{bucketId}/credentials/rotate',
    tags: ['credentials'],
    summary: "Replace the bucket's own key (admin)",
    middleware: bucketHoldersRead.middleware,
    description:
      "A new key id and secret; the old key stops working. Apps' own keys do not change. 503 with nothing changed when IAM cannot be reached.",
    request: { params: BucketParams },
    responses: { 200: json(BucketCredentialsSchema, 'the new key (shown)'), ...errorResponses(503) },
  }),
  async (c) => {
    const { rows, holders } = bucketHoldersRead.of(c);
    return c.json(await rotateBucketKey(requestContext(c), rows, holders.rows), 200);
  },
);
