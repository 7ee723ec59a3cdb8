/** Storage buckets of a project (contract §4). */

import { type AppEnv, getDb, getHttpDb } from '../context';
import { SERVICE_NAME_RE } from '../domain/names';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { projectIdOf } from '../services/caller/api-caller';
import { retryOnConcurrentChange } from '../services/connections/retry';
import { serviceHoldersFrom, serviceHoldersQueries } from '../services/connections/service-removal';
import {
  type BucketRow,
  bucketCreationQueries,
  bucketOf,
  bucketQuery,
  createBucket,
  deleteBucket,
  listBuckets,
} from '../services/resources/buckets';
import { creationReadFrom } from '../services/resources/new-service-write';
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

const BucketSchema = z
  .object({ id: z.string(), name: z.string(), region: z.string(), created_at: z.string() })
  .openapi('Bucket');
const toBucket = (b: BucketRow) => ({
  id: b.id,
  name: b.name,
  region: b.region,
  created_at: iso(b.createdAt),
});

export const bucketsRoutes = routeGroup<AppEnv>();

bucketsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/buckets',
    tags: ['buckets'],
    summary: 'Create a bucket (connected to the only site of a one-site project)',
    middleware: [readsCaller, callerBeforeMalformedJson],
    request: {
      params: ProjectParam,
      ...jsonBody(
        z
          .object({
            name: z.string().regex(SERVICE_NAME_RE, '1 to 63 of a-z 0-9 - _, starting with a letter'),
            region: z
              .string()
              .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'a region such as us-east-1')
              .optional(),
          })
          .strict(),
      ),
    },
    responses: { 201: json(BucketSchema, 'the bucket'), ...errorResponses(409, 503) },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    // One read with the caller: the project's buckets (names) and its only site with its connections.
    const answers = await readWithCaller(c, bucketCreationQueries(getHttpDb(c), projectIdOf(ref)));
    const { project } = await access(c, ref, 'write');
    const row = await createBucket(
      requestContext(c),
      project.id,
      c.req.valid('json'),
      creationReadFrom<BucketRow>(answers),
    );
    return c.json(toBucket(row), 201);
  },
  callerBeforeBody,
);

/** The project's buckets, at read or for a key with the storage capability. */
const bucketsRead = declareReads(
  'read',
  ({ http, project }) => ({ rows: rowsRead(listBuckets(http, project)) }),
  (caps) => caps.storage === true,
);

bucketsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/buckets',
    tags: ['buckets'],
    summary: "The project's buckets (read role, or a key with the storage capability)",
    middleware: bucketsRead.middleware,
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ buckets: z.array(BucketSchema) }), 'the buckets') },
  }),
  async (c) => c.json({ buckets: bucketsRead.of(c).rows.map(toBucket) }, 200),
);

bucketsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/buckets/{bucketId}',
    tags: ['buckets'],
    summary: 'Delete a bucket and its connections',
    middleware: [readsCaller],
    request: { params: ProjectParam.extend({ bucketId: z.string() }) },
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted'), ...errorResponses(409) },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const db = getHttpDb(c);
    const projectId = projectIdOf(params.id);
    await retryOnConcurrentChange(getDb(c), async () => {
      // One read with the caller: the bucket, and the sites holding it with their connections.
      const [found, ...holders] = await readWithCaller(c, [
        bucketQuery(db, projectId, params.bucketId),
        ...serviceHoldersQueries(db, projectId, 'bucket', params.bucketId),
      ]);
      await access(c, params.id, 'write');
      requireUuid(params.bucketId, 'bucket');
      await deleteBucket(requestContext(c), bucketOf(found), serviceHoldersFrom(holders));
    });
    return c.json({ deleted: true as const }, 200);
  },
);
