/**
 * The six connection routes (spec, Management routes). Project API keys get 403 on all of
 * them: a site's managed key is minted from its connections, so a key able to change them
 * could widen its own powers.
 */
import type { Context } from 'hono';
import { type AppEnv, getDb, getHttpDb } from '../context';
import type { Kind } from '../domain/levels';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { projectIdOf } from '../services/caller/api-caller';
import { applyPlan } from '../services/connections/apply';
import { projectListingFrom, projectListingQuery, siteListing } from '../services/connections/listing';
import { connectionKey, toConnectionObjects } from '../services/connections/model';
import { afterOf } from '../services/connections/plan';
import { retryOnConcurrentChange } from '../services/connections/retry';
import {
  type SiteContext,
  siteFromRows,
  siteReadQuery,
  siteWriteFrom,
  siteWriteQueries,
} from '../services/connections/site-access';
import {
  planConnect,
  planDisconnect,
  planPromote,
  planReplace,
  planRotate,
} from '../services/connections/site-plans';
import { AvailableSchema, ConnectionSchema, DesiredConnectionSchema, KindSchema } from './connection-schemas';
import {
  access,
  callerBeforeBody,
  callerBeforeMalformedJson,
  ProjectParam,
  readsCaller,
  readWithCaller,
  requestContext,
  siteBeforeBody,
} from './shared';

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SiteParams = ProjectParam.extend({
  siteId: z.string().openapi({ description: 'a site of the project: its id or its slug' }),
});
const OneParams = SiteParams.extend({ kind: KindSchema, resourceId: z.string() });
const tags = ['connections'];

/**
 * A write's one read, with the caller's lookup when it is still to be made: the site, its
 * connections and state, and the services `resourceIds` may name. The write itself is one
 * more round trip (applyPlan's guarded batch).
 */
async function siteForWrite(
  c: Context<AppEnv>,
  params: { id: string; siteId: string },
  resourceIds: string[],
  rotating?: string,
) {
  const db = getHttpDb(c);
  const answers = await readWithCaller(
    c,
    siteWriteQueries(db, params.id, params.siteId, resourceIds, rotating),
  );
  return siteWriteFrom(c.get('principal'), c.get('membership'), answers, rotating);
}

export const connectionsRoutes = routeGroup<AppEnv>();

connectionsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/connections',
    tags,
    summary: "The project's connections; kind plus resource_id answers which apps use a service",
    middleware: [readsCaller],
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
    const ref = c.req.valid('param').id;
    const q = c.req.valid('query');
    const filter = {
      siteId: q.site_id?.toLowerCase(),
      kind: q.kind,
      resourceId: q.resource_id?.toLowerCase(),
    };
    const [answer] = await readWithCaller(c, [projectListingQuery(getHttpDb(c), projectIdOf(ref), filter)]);
    await access(c, ref, 'read');
    return c.json({ connections: projectListingFrom(answer, filter) }, 200);
  },
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/connections',
    tags,
    summary: "A site's connections and the services it could connect",
    middleware: [readsCaller],
    request: { params: SiteParams },
    responses: {
      200: json(
        z.object({ connections: z.array(ConnectionSchema), available: z.array(AvailableSchema) }),
        'connections and available services',
      ),
    },
  }),
  async (c) => {
    const { id, siteId } = c.req.valid('param');
    const [answer] = await readWithCaller(c, [siteReadQuery(getHttpDb(c), id, siteId)]);
    return c.json(siteListing(siteFromRows(c.get('principal'), c.get('membership'), answer, 'read')), 200);
  },
);

/** The site's connection objects after a plan, from what was read and what was written. */
function objectsAfter(
  ctx: SiteContext,
  plan: Parameters<typeof afterOf>[0],
  inserted: Parameters<typeof afterOf>[2],
) {
  return toConnectionObjects(afterOf(plan, ctx.site.id, inserted));
}

connectionsRoutes.openapi(
  apiRoute({
    method: 'put',
    path: '/projects/{id}/sites/{siteId}/connections',
    tags,
    middleware: [readsCaller, callerBeforeMalformedJson],
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
    const params = c.req.valid('param');
    const { connections: desired } = c.req.valid('json');
    const result = await retryOnConcurrentChange(getDb(c), async () => {
      const { ctx, read } = await siteForWrite(
        c,
        params,
        desired.map((d) => d.resource_id),
      );
      const plan = planReplace(ctx, desired);
      const written = await applyPlan(requestContext(c), plan, read);
      return objectsAfter(ctx, plan, written.inserted);
    });
    return c.json({ connections: result }, 200);
  },
  siteBeforeBody,
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/connections',
    tags,
    middleware: [readsCaller, callerBeforeMalformedJson],
    summary: 'Connect one service, or change the level of its connection',
    description: "Without level: a new connection gets the kind's default; an existing one keeps its level.",
    request: { params: SiteParams, ...jsonBody(DesiredConnectionSchema) },
    responses: { 201: json(ConnectionSchema, 'the stored connection'), ...errorResponses(409, 503) },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const want = c.req.valid('json');
    const result = await retryOnConcurrentChange(getDb(c), async () => {
      const { ctx, read } = await siteForWrite(c, params, [want.resource_id]);
      const plan = planConnect(ctx, want);
      const written = await applyPlan(requestContext(c), plan, read);
      const key = connectionKey(want.kind, want.resource_id.toLowerCase());
      return objectsAfter(ctx, plan, written.inserted).find(
        (o) => connectionKey(o.kind, o.resource_id) === key,
      );
    });
    return c.json(result as NonNullable<typeof result>, 201);
  },
  siteBeforeBody,
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}',
    tags,
    middleware: [readsCaller],
    summary:
      'Disconnect one service (removed:false when it was not connected; 404 when the project has no such service)',
    description:
      "The connection's own credential is deleted before the answer (its open sessions end); if the outside system cannot be reached, the deletion is retried in the background.",
    request: { params: OneParams },
    responses: {
      200: json(z.object({ removed: z.boolean() }), 'whether a connection was removed'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const removed = await retryOnConcurrentChange(getDb(c), async () => {
      const { ctx, read } = await siteForWrite(c, params, [params.resourceId]);
      const plan = planDisconnect(ctx, params.kind as Kind, params.resourceId);
      if (!plan) return false;
      await applyPlan(requestContext(c), plan, read);
      return true;
    });
    return c.json({ removed }, 200);
  },
  callerBeforeBody,
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotate',
    tags,
    middleware: [readsCaller],
    summary: "A new secret for this connection's own credential (database or bucket); never returned",
    request: { params: OneParams },
    responses: {
      204: { description: 'rotated; the app receives the new secret by live patch and at its next deploy' },
      ...errorResponses(409, 503),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    await retryOnConcurrentChange(getDb(c), async () => {
      const { ctx, read } = await siteForWrite(c, params, [params.resourceId], params.resourceId);
      await applyPlan(requestContext(c), planRotate(ctx, params.kind as Kind, params.resourceId), read);
    });
    return c.body(null, 204);
  },
  callerBeforeBody,
);

connectionsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/promote',
    tags,
    middleware: [readsCaller],
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
    const params = c.req.valid('param');
    const result = await retryOnConcurrentChange(getDb(c), async () => {
      const { ctx, read } = await siteForWrite(c, params, []);
      const plan = planPromote(ctx, params.kind as Kind, params.resourceId);
      await applyPlan(requestContext(c), plan, read);
      const key = connectionKey(params.kind as Kind, params.resourceId.toLowerCase());
      return objectsAfter(ctx, plan, []).find((o) => connectionKey(o.kind, o.resource_id) === key);
    });
    return c.json(result as NonNullable<typeof result>, 200);
  },
  callerBeforeBody,
);
