/**
 * A site's delivery target and what became of its live patches (contract §11). The target's
 * kinds are the registry's (adapters/targets); nothing here branches on one.
 */
import { PATCH_REASONS } from '../domain/patch-reasons';
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { type ReadScope, read } from '../use-cases/caller/declared-reads';
import { enqueueDeliveries } from '../use-cases/delivery/deliveries';
import { reviveDelivery, showDelivery, siteDeliveriesQuery } from '../use-cases/delivery/delivery-status';
import {
  describeTarget,
  parseTarget,
  removeSiteTarget,
  setSiteTarget,
  siteWithTarget,
  TARGET_INPUT,
  TARGET_TYPES,
} from '../use-cases/delivery/targets';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { requestContext } from './shared';
import { SiteParams } from './site-variables';

const tags = ['delivery'];
const TYPES = TARGET_TYPES;

const TargetSchema = z
  .object({ type: z.enum([...TYPES, 'default']) })
  .catchall(z.unknown())
  .openapi('DeliveryTarget', {
    description:
      'The target without its secret: `{type:"default"}` (RUNTIME_PATCH_URL), or the fields given with `api_token_set:true` (`secret_set:true` for a webhook)',
  });

const TargetInput = TARGET_INPUT.openapi('DeliveryTargetInput', {
  description:
    'One of `{type:"webhook", url, secret}`, `{type:"cloudflare", account_id, script_name, api_token}`, `{type:"vercel", project_id, team_id?, api_token, environments:["production"|"preview"|"development"]}`, `{type:"fly", app_name, api_token}`',
});

const DeliverySchema = z
  .object({
    id: z.string(),
    seq: z.number().nullable(),
    reason: z.enum(PATCH_REASONS).openapi({ description: 'why the variables changed (docs/contract.md §6)' }),
    names: z.array(z.string()),
    status: z.enum(['pending', 'delivered', 'live', 'failed', 'dead']),
    attempts: z.number(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    live_at: z.string().nullable(),
  })
  .openapi('Delivery');

/** The site the path names, with its target (its 404 after the caller's refusals). */
const siteRead = ({ http, path }: ReadScope) => ({
  row: read(siteWithTarget(http, path.id ?? '', path.siteId ?? ''), ([row]) => {
    if (!row) throw new ApiError('NOT_FOUND', 'site not found');
    return row;
  }),
});

/** The site, at read, at write and at admin (an invalid target of an unknown site is 404, as its reads come first). */
const reader = declareReads({ role: 'read' }, siteRead);
const writer = declareReads({ role: 'write' }, siteRead);
const admin = declareReads({ role: 'admin' }, siteRead);
/** The site and its latest deliveries (as many as the query's limit), at read. */
const deliveriesRead = declareInputReads(
  { role: 'read' },
  (scope, limit: number) => ({
    ...siteRead(scope),
    listed: read(
      siteDeliveriesQuery(scope.http, scope.path.id ?? '', scope.path.siteId ?? '', limit),
      (rows) => rows,
    ),
  }),
  siteRead,
);

export const targetsRoutes = declaredRoutes();

targetsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/target',
    tags,
    summary: "Where the site's live patches go",
    middleware: reader.middleware,
    request: { params: SiteParams },
    responses: { 200: json(TargetSchema, 'the target, never its secret') },
  }),
  async (c) => {
    const { target } = reader.of(c).row;
    return c.json(describeTarget(target) as z.infer<typeof TargetSchema>, 200);
  },
);

targetsRoutes.openapi(
  apiRoute({
    method: 'put',
    path: '/projects/{id}/sites/{siteId}/target',
    tags,
    summary: "Set the site's delivery target; it receives the whole effective set once (reason sync)",
    description:
      "The target is checked with one read call at its platform first: a refused token or a missing script, project or app is 400 `TARGET_REFUSED` with the platform's message; an unreachable platform 503; nothing is stored either way. The secret is kept encrypted and never answered.",
    middleware: admin.middleware,
    request: { params: SiteParams, ...jsonBody(TargetInput) },
    responses: { 200: json(TargetSchema, 'the target, never its secret'), ...errorResponses(503) },
  }),
  async (c) => {
    const { site } = admin.of(c).row;
    const { adapter, input } = parseTarget(c.req.valid('json'));
    const ctx = requestContext(c);
    const { syncId, described } = await setSiteTarget(ctx, { site, adapter, input });
    await enqueueDeliveries(ctx, [syncId]);
    return c.json(described as z.infer<typeof TargetSchema>, 200);
  },
);

targetsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/sites/{siteId}/target',
    tags,
    summary: "Remove the site's target: its patches go to RUNTIME_PATCH_URL again",
    middleware: admin.middleware,
    request: { params: SiteParams },
    responses: { 200: json(z.object({ type: z.literal('default') }), 'the default target') },
  }),
  async (c) => {
    const { site } = admin.of(c).row;
    await removeSiteTarget(requestContext(c), { site });
    return c.json({ type: 'default' as const }, 200);
  },
);

targetsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/deliveries',
    tags,
    summary: "The site's latest live patches, newest first: names, never values",
    middleware: deliveriesRead.middleware,
    request: {
      params: SiteParams,
      query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
    },
    responses: {
      200: json(
        z.object({
          target: z.object({
            type: z.string(),
            configured: z.boolean().openapi({
              description:
                'whether live patches go anywhere: a target of the site, or (type default) a platform-wide RUNTIME_PATCH_URL; false: they wait as pending deliveries',
            }),
          }),
          deliveries: z.array(DeliverySchema),
        }),
        'the deliveries',
      ),
    },
  }),
  async (c) => {
    const { row, listed } = await deliveriesRead.run(c, c.req.valid('query').limit);
    return c.json(
      {
        target: {
          type: row.target?.type ?? 'default',
          configured: row.target !== null || c.get('ctx').receivers.runtimePatch !== null,
        },
        deliveries: listed.map(showDelivery),
      },
      200,
    );
  },
);

targetsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/deliveries/{deliveryId}/retry',
    tags,
    summary: 'Send a dead or failed live patch again',
    middleware: writer.middleware,
    request: { params: SiteParams.extend({ deliveryId: z.string() }) },
    responses: {
      202: json(z.object({ id: z.string(), status: z.literal('pending') }), 'queued again'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const { deliveryId } = c.req.valid('param');
    const { site } = writer.of(c).row;
    const outcome = await reviveDelivery(requestContext(c), { site, deliveryId });
    if (outcome === 'unknown') throw new ApiError('NOT_FOUND', 'delivery not found');
    if (outcome !== 'revived')
      throw new ApiError('CONFLICT', `the delivery is ${outcome}; only a dead or failed one is sent again`);
    await enqueueDeliveries(requestContext(c), [deliveryId.toLowerCase()]);
    return c.json({ id: deliveryId.toLowerCase(), status: 'pending' as const }, 202);
  },
);
