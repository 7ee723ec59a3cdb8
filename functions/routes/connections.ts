/**
 * The connection routes (docs/connections.md): each validates and calls one use case
 * (use-cases/connections/connection-writes.ts for the writes). Project API keys get 403 on all
 * of them: a site's managed key is minted from its connections, so a key able to change them
 * could widen its own powers.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { Kind } from '../domain/levels';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { type ReadScope, read, readMany } from '../use-cases/caller/declared-reads';
import {
  projectListingFrom,
  projectListingQuery,
  siteListing,
} from '../use-cases/connections/connection-listing';
import {
  connect,
  disconnect,
  promote,
  type ReadSite,
  replaceConnections,
  rotateConnection,
  type WriteInput,
} from '../use-cases/connections/connection-writes';
import { siteWriteOf, siteWriteQueries } from '../use-cases/connections/site-access';
import { AvailableSchema, ConnectionSchema, DesiredConnectionSchema, KindSchema } from './connection-schemas';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { GraceSecondsQuery } from './grace-seconds';
import { ProjectParam, requestContext } from './shared';
import { siteNeed, siteRead } from './site-reads';

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SiteParams = ProjectParam.extend({
  siteId: z.string().openapi({ description: 'a site of the project: its id or its slug' }),
});
export const OneParams = SiteParams.extend({ kind: KindSchema, resourceId: z.string() });
const tags = ['connections'];

/**
 * A write's one read, with the caller's lookup the first time: the site, its connections and
 * state, and the services the input may name. The write itself is one more round trip
 * (applyPlan's guarded batch).
 */
const writeRead = ({ http, path }: ReadScope, input: WriteInput) => ({
  write: readMany(
    siteWriteQueries(http, path.id ?? '', path.siteId ?? '', input.resourceIds, input.rotating),
    (answers) => siteWriteOf(answers, input.rotating),
  ),
});
/** A write with a body, at write: an invalid body of an unknown site is 404, as its site is read first. */
const bodyWrite = declareInputReads(siteNeed('write'), writeRead, siteRead);
/** A write to one connection the path names, at write. */
const oneWrite = declareInputReads(siteNeed('write'), writeRead);
/** The project's connections, filtered by the validated query, at read. */
const projectListing = declareInputReads(
  siteNeed('read'),
  ({ http, project }, filter: Parameters<typeof projectListingQuery>[2]) => ({
    connections: read(projectListingQuery(http, project, filter), (answer) =>
      projectListingFrom(answer, filter),
    ),
  }),
);
/** The route's read of the site for a write, as the use case calls it (once per try). */
const readFor =
  (c: Context<AppEnv>, reads: typeof oneWrite): ReadSite =>
  async (input: WriteInput) =>
    (await reads.run(c, input)).write;

/** The site's connections and the services it could connect, at read. */
const siteConnections = declareReads(siteNeed('read'), siteRead);

export const connectionsRoutes = declaredRoutes();

connectionsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/connections',
    tags,
    summary: "The project's connections; kind plus resource_id answers which apps use a service",
    middleware: projectListing.middleware,
    request: {
      params: ProjectParam,
      query: z.object({
        site_id: z.string().regex(UUID_PATTERN, 'a site uuid').optional(),
        kind: KindSchema.optional(),
        resource_id: z.string().regex(UUID_PATTERN, 'a service id').optional(),
      }),
    },
    responses: { 200: json(z.object({ connections: z.array(ConnectionSchema) }), 'the connections') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const filter = {
      siteId: q.site_id?.toLowerCase(),
      kind: q.kind,
      resourceId: q.resource_id?.toLowerCase(),
    };
    return c.json({ connections: (await projectListing.run(c, filter)).connections }, 200);
  },
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/connections',
    tags,
    summary: "A site's connections and the services it could connect",
    middleware: siteConnections.middleware,
    request: { params: SiteParams },
    responses: {
      200: json(
        z.object({ connections: z.array(ConnectionSchema), available: z.array(AvailableSchema) }),
        'connections and available services',
      ),
    },
  }),
  async (c) => c.json(siteListing(siteConnections.of(c).site), 200),
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'put',
    path: '/projects/{id}/sites/{siteId}/connections',
    tags,
    middleware: bodyWrite.middleware,
    summary: "Replace the site's whole set of connections (all or nothing; only what moved is re-derived)",
    request: {
      params: SiteParams,
      ...jsonBody(z.object({ connections: z.array(DesiredConnectionSchema).max(1000) }).strict()),
    },
    responses: {
      200: json(z.object({ connections: z.array(ConnectionSchema) }), 'the connections after the write'),
      ...errorResponses(409, 503),
    },
  }),
  async (c) => {
    const { connections: desired } = c.req.valid('json');
    const connections = await replaceConnections(requestContext(c), readFor(c, bodyWrite), desired);
    return c.json({ connections: connections ?? [] }, 200);
  },
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/connections',
    tags,
    middleware: bodyWrite.middleware,
    summary: 'Connect one service, or change the level of its connection',
    description: "Without level: a new connection gets the kind's default; an existing one keeps its level.",
    request: { params: SiteParams, ...jsonBody(DesiredConnectionSchema) },
    responses: { 201: json(ConnectionSchema, 'the stored connection'), ...errorResponses(409, 503) },
  }),
  async (c) => {
    const connection = await connect(requestContext(c), readFor(c, bodyWrite), c.req.valid('json'));
    return c.json(connection as NonNullable<typeof connection>, 201);
  },
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}',
    tags,
    middleware: oneWrite.middleware,
    summary:
      'Disconnect one service (removed:false when there is no such connection, for an id the project has no service for too; 404 for a name that names no service)',
    description:
      "The connection's own credential is deleted before the answer (its open sessions end); if the outside system cannot be reached, the deletion is retried in the background.",
    request: { params: OneParams },
    responses: {
      200: json(z.object({ removed: z.boolean() }), 'whether a connection was removed'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const { kind, resourceId } = c.req.valid('param');
    const removed = await disconnect(requestContext(c), readFor(c, oneWrite), kind as Kind, resourceId);
    return c.json({ removed }, 200);
  },
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotate',
    tags,
    middleware: oneWrite.middleware,
    summary: "A new secret for this connection's own credential (database or bucket); never returned",
    description:
      "Graceful by default (docs/contract.md §14): the new secret is valid beside the old one (a second login of the same identity, or the key user's second key), delivered by live patch (reason `rotate`), and the old one is retired once the patch is live and, for a database, no session of the old login remains, or at ROTATION_GRACE_SECONDS (`?grace_seconds=N`, 0 to 86400, sets that deadline for this rotation); follow it at `…/rotation`. A graceful rotate while the last one still retires its old credential is 409. `?immediate=true` (a leaked secret) keeps the login and refuses the old secret at once; it takes no `grace_seconds` (400).",
    request: {
      params: OneParams,
      query: z.object({
        immediate: z
          .enum(['true', 'false'])
          .optional()
          .openapi({ description: 'true: refuse the old secret at once (same login, new secret)' }),
        grace_seconds: GraceSecondsQuery,
      }),
    },
    responses: {
      204: { description: 'rotated; the app receives the new secret by live patch and at its next deploy' },
      ...errorResponses(409, 503),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const query = c.req.valid('query');
    const options = { immediate: query.immediate === 'true', graceSeconds: query.grace_seconds };
    await rotateConnection(
      requestContext(c),
      readFor(c, oneWrite),
      params.kind as Kind,
      params.resourceId,
      options,
    );
    return c.body(null, 204);
  },
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/promote',
    tags,
    middleware: oneWrite.middleware,
    summary:
      "Give this connection its family's plain names (DATABASE_URL, MONGODB_URI/URL, STORAGE_*, SERVICE_AUTH_*)",
    description:
      'Plain names never move to another connection by themselves (contract §9): disconnecting their holder unsets them. Promote takes them from whichever connection of the family holds them; the running app receives one live patch, reason `promote`. Promoting the holder changes nothing.',
    request: { params: OneParams },
    responses: {
      200: json(ConnectionSchema, 'the connection, now holding the plain names'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const { kind, resourceId } = c.req.valid('param');
    const connection = await promote(requestContext(c), readFor(c, oneWrite), kind as Kind, resourceId);
    return c.json(connection as NonNullable<typeof connection>, 200);
  },
);
