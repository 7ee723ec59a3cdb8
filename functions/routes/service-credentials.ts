/** The service's own credentials (contract §7): a database's main user, a bucket's own key. Admin only. */
import type { Context } from 'hono';
import { type AppEnv, getHttpDb } from '../context';
import { isUuid } from '../lib/ids';
import { apiRoute, errorResponses, json, routeGroup, z } from '../lib/openapi';
import {
  bucketCredentials,
  databaseCredentials,
  rotateBucketKey,
  rotateDatabasePassword,
} from '../services/access/service-credentials';
import { projectIdOf } from '../services/caller/api-caller';
import { bucketQuery } from '../services/resources/buckets';
import { databaseQuery } from '../services/resources/databases';
import { connectedSiteInputsQuery } from '../services/site-env/derive';
import { access, ProjectParam, readsCaller, readWithCaller, requestContext } from './shared';

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

/** The project at admin (its membership came with the route's read: no query) and the services' dependencies. */
async function adminDeps(c: Context<AppEnv>, projectRef: string) {
  const { project } = await access(c, projectRef, 'admin');
  return {
    projectId: project.id,
    ctx: requestContext(c),
  };
}

/** A service id that names nothing, for a path id that is not a uuid (its read then finds no row). */
const NO_ID = '00000000-0000-0000-0000-000000000000';

export const serviceCredentialsRoutes = routeGroup<AppEnv>();

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/databases/{dbId}/credentials',
    tags: ['credentials'],
    summary: "The database's main user u_… with its password and URLs (admin)",
    middleware: [readsCaller],
    request: { params: DbParams },
    responses: { 200: json(DatabaseCredentialsSchema, 'the main credentials (shown)') },
  }),
  async (c) => {
    const { id, dbId } = c.req.valid('param');
    const [rows] = await readWithCaller(c, [databaseQuery(getHttpDb(c), projectIdOf(id), dbId)]);
    const { ctx } = await adminDeps(c, id);
    return c.json(await databaseCredentials(ctx, rows), 200);
  },
);

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/databases/{dbId}/credentials/rotate',
    tags: ['credentials'],
    summary: "Give the database's main user a new password (admin)",
    middleware: [readsCaller],
    description:
      "Apps' own credentials do not change. Apps handed the shared credential (standalone MongoDB, connected while the database was stopped, apps from before per-connection credentials) get the new password by live patch, reason `credential`. 503 with nothing changed when the cluster or Atlas cannot be reached; 409 when another rotation of the database stored its password at the same time (the cluster keeps that one).",
    request: { params: DbParams },
    responses: {
      200: json(DatabaseCredentialsSchema, 'the new main credentials (shown)'),
      ...errorResponses(409, 503),
    },
  }),
  async (c) => {
    const { id, dbId } = c.req.valid('param');
    const http = getHttpDb(c);
    const [rows, holders] = await readWithCaller(c, [
      databaseQuery(http, projectIdOf(id), dbId),
      connectedSiteInputsQuery(http, isUuid(dbId) ? dbId.toLowerCase() : NO_ID),
    ]);
    const { ctx } = await adminDeps(c, id);
    return c.json(await rotateDatabasePassword(ctx, rows, holders.rows), 200);
  },
);

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/buckets/{bucketId}/credentials',
    tags: ['credentials'],
    summary: "The bucket's own key (admin)",
    middleware: [readsCaller],
    request: { params: BucketParams },
    responses: { 200: json(BucketCredentialsSchema, 'the bucket key (shown)') },
  }),
  async (c) => {
    const { id, bucketId } = c.req.valid('param');
    const [rows] = await readWithCaller(c, [bucketQuery(getHttpDb(c), projectIdOf(id), bucketId)]);
    const { ctx } = await adminDeps(c, id);
    return c.json(await bucketCredentials(ctx, rows), 200);
  },
);

serviceCredentialsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/buckets/{bucketId}/credentials/rotate',
    tags: ['credentials'],
    summary: "Replace the bucket's own key (admin)",
    middleware: [readsCaller],
    description:
      "A new key id and secret; the old key stops working. Apps' own keys do not change. 503 with nothing changed when IAM cannot be reached.",
    request: { params: BucketParams },
    responses: { 200: json(BucketCredentialsSchema, 'the new key (shown)'), ...errorResponses(503) },
  }),
  async (c) => {
    const { id, bucketId } = c.req.valid('param');
    const http = getHttpDb(c);
    const [rows, holders] = await readWithCaller(c, [
      bucketQuery(http, projectIdOf(id), bucketId),
      connectedSiteInputsQuery(http, isUuid(bucketId) ? bucketId.toLowerCase() : NO_ID),
    ]);
    const { ctx } = await adminDeps(c, id);
    return c.json(await rotateBucketKey(ctx, rows, holders.rows), 200);
  },
);
