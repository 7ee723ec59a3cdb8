/** What a site's app is handed (contract §5): the effective variables, deploys and rollbacks. */
import { type AppEnv, getHttpDb } from '../context';
import { ApiError } from '../lib/errors';
import { apiRoute, json, routeGroup, z } from '../lib/openapi';
import { siteFromRows, siteReadQuery } from '../services/connections/site-access';
import {
  DEPLOYS_LISTED,
  type DeployTuple,
  deployReads,
  deploysOfSite,
  effectiveOf,
  envInputsQuery,
  recordDeploy,
  rolledBack,
} from '../services/deploys';
import {
  access,
  callerBeforeMalformedOptionalJson,
  iso,
  ProjectParam,
  readsCaller,
  readWithCaller,
  requestContext,
  siteBeforeBody,
} from './shared';

const SiteParams = ProjectParam.extend({
  siteId: z.string().openapi({ description: 'a site of the project: its id or its slug' }),
});
const DeploySchema = z
  .object({
    id: z.string(),
    rollback_of: z.string().nullable().optional(),
    created_at: z.string(),
    env_names: z.array(z.string()).openapi({ description: 'every variable name the deploy is handed' }),
  })
  .openapi('Deploy');
const tags = ['deploys'];

export const deploysRoutes = routeGroup<AppEnv>();

deploysRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/env/effective',
    tags: ['variables'],
    summary: 'What the app is handed: user variables overlaid with derived ones (derived win)',
    middleware: [readsCaller],
    request: { params: SiteParams },
    responses: {
      200: json(z.object({ vars: z.record(z.string(), z.string()) }), 'the effective variables'),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    // The caller, the site and what it derives from in one trip.
    const db = getHttpDb(c);
    const [answer, inputs] = await readWithCaller(c, [
      siteReadQuery(db, params.id, params.siteId),
      envInputsQuery(db, params.id, params.siteId),
    ]);
    siteFromRows(c.get('principal'), c.get('membership'), answer, 'write');
    const vars = await effectiveOf(requestContext(c), { answer: inputs });
    return c.json({ vars }, 200);
  },
);

deploysRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/deploys',
    tags,
    summary: `The site's newest deploys (at most ${DEPLOYS_LISTED}), newest first`,
    middleware: [readsCaller],
    request: { params: SiteParams },
    responses: { 200: json(z.object({ deploys: z.array(DeploySchema) }), 'the deploys') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const [answer] = await readWithCaller(c, [deploysOfSite(getHttpDb(c), params.id, params.siteId)]);
    await access(c, params.id, 'read');
    const row = answer.rows[0];
    if (!row) throw new ApiError('NOT_FOUND', 'site not found');
    const listed: DeployTuple[] = row.deploys;
    return c.json(
      {
        deploys: listed.map(([id, rollbackOf, at, names]) => ({
          id,
          rollback_of: rollbackOf,
          created_at: iso(new Date(at)),
          env_names: names,
        })),
      },
      200,
    );
  },
);

deploysRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/deploys',
    tags,
    summary: 'Deploy the site with freshly derived variables',
    middleware: [readsCaller, callerBeforeMalformedOptionalJson],
    request: {
      params: SiteParams,
      body: {
        content: {
          'application/json': {
            schema: z
              .looseObject({
                ref: z
                  .string()
                  .max(256)
                  .optional()
                  .openapi({ description: 'what the platform deployed (a commit, a branch); not stored' }),
              })
              .openapi({
                description: '{} or a ref; other fields a platform adds (a message) are ignored too',
              }),
          },
        },
        required: false,
      },
    },
    responses: { 201: json(DeploySchema, 'the deploy') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const db = getHttpDb(c);
    const [answer, ...reads] = await readWithCaller(c, [
      siteReadQuery(db, params.id, params.siteId),
      ...deployReads(db, params.id, params.siteId),
    ]);
    const ctx = siteFromRows(c.get('principal'), c.get('membership'), answer, 'write');
    return c.json(await recordDeploy(requestContext(c), ctx.project.id, ctx.site.id, null, reads), 201);
  },
  siteBeforeBody,
);

deploysRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/deploys/{deployId}/rollback',
    tags,
    summary: 'Roll back to an earlier deploy; variables are derived afresh, as for a new deploy',
    middleware: [readsCaller],
    request: { params: SiteParams.extend({ deployId: z.string() }) },
    responses: { 201: json(DeploySchema, 'the new deploy') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const db = getHttpDb(c);
    const [answer, ...reads] = await readWithCaller(c, [
      siteReadQuery(db, params.id, params.siteId),
      ...deployReads(db, params.id, params.siteId, params.deployId),
    ]);
    const ctx = siteFromRows(c.get('principal'), c.get('membership'), answer, 'write');
    const rollbackOf = rolledBack(reads);
    const made = await recordDeploy(requestContext(c), ctx.project.id, ctx.site.id, rollbackOf, reads);
    return c.json({ ...made, rollback_of: rollbackOf }, 201);
  },
);
