/** Storage buckets of a project (contract §4). */

import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import {
  type BucketRow,
  bucketCreationQueries,
  bucketOf,
  bucketQuery,
  createBucket,
  deleteBucket,
  listBuckets,
} from '../use-cases/resources/buckets';
import { declaredRoutes } from './declared-reads';
import { creationRead, listingRoute, removalRoute, type ServiceRoutes } from './service-routes';
import { iso, ProjectParam, requestContext, ServiceName } from './shared';

const BucketSchema = z
  .object({ id: z.string(), name: z.string(), region: z.string(), created_at: z.string() })
  .openapi('Bucket');

const buckets: ServiceRoutes<BucketRow, z.infer<typeof BucketSchema>> = {
  kind: 'bucket',
  plural: 'buckets',
  param: 'bucketId',
  schema: BucketSchema,
  toJson: (b) => ({ id: b.id, name: b.name, region: b.region, created_at: iso(b.createdAt) }),
  keys: (caps) => caps.storage === true,
  listSummary: "The project's buckets (read role, or a key with the storage capability)",
  list: listBuckets,
  one: bucketQuery,
  rowOf: bucketOf,
  remove: (ctx, row, holders) => deleteBucket(ctx, row, holders),
  removalErrors: [409],
};

export const bucketsRoutes = declaredRoutes();

/** The project's buckets (names) and its only site with its connections, at write. */
const creation = creationRead<BucketRow>(bucketCreationQueries);

bucketsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/buckets',
    tags: ['buckets'],
    summary: 'Create a bucket (connected to the only site of a one-site project)',
    middleware: creation.middleware,
    request: {
      params: ProjectParam,
      ...jsonBody(
        z
          .object({
            name: ServiceName,
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
    const { projectId, creation: read } = creation.of(c);
    const row = await createBucket(requestContext(c), projectId, c.req.valid('json'), read);
    return c.json(buckets.toJson(row), 201);
  },
);

listingRoute(bucketsRoutes, buckets);
removalRoute(bucketsRoutes, buckets);
