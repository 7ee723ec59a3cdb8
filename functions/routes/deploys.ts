/** What a site's app is handed (contract §5): the effective variables, deploys and rollbacks. */
import { ApiError } from '../lib/errors';
import { apiRoute, json, z } from '../lib/openapi';
import { read, readMany, rowsRead } from '../use-cases/caller/declared-reads';
import {
  DEPLOYS_LISTED,
  type DeployReads,
  type DeployTuple,
  deployReads,
  deploysOfSite,
  effectiveOf,
  envInputsQuery,
  recordDeploy,
  rolledBack,
} from '../use-cases/deploys';
import { declaredRoutes, declareReads } from './declared-reads';
import { iso, ProjectParam, requestContext } from './shared';
import { siteNeed, siteRead } from './site-reads';

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

export const deploysRoutes = declaredRoutes();

/** The site and what its variables derive from, at write. */
const effective = declareReads(siteNeed('write'), (scope) => ({
  ...siteRead(scope),
  inputs: rowsRead(envInputsQuery(scope.http, scope.path.id ?? '', scope.path.siteId ?? '')),
}));
/** The site's newest deploys, at read (the site's 404 after the caller's refusals). */
const listing = declareReads(siteNeed('read'), ({ http, path }) => ({
  deploys: read(deploysOfSite(http, path.id ?? '', path.siteId ?? ''), (answer): DeployTuple[] => {
    const row = answer.rows[0];
    if (!row) throw new ApiError('NOT_FOUND', 'site not found');
    return row.deploys;
  }),
}));
/** A deploy's read, at write: the site and what the deploy (or the rollback of `:deployId`) reads. */
const deploying = declareReads(siteNeed('write'), (scope) => ({
  ...siteRead(scope),
  reads: readMany(
    deployReads(scope.http, scope.path.id ?? '', scope.path.siteId ?? '', scope.path.deployId),
    (answers) => answers as DeployReads,
  ),
}));

deploysRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/env/effective',
    tags: ['variables'],
    summary: 'What the app is handed: user variables overlaid with derived ones (derived win)',
    middleware: effective.middleware,
    request: { params: SiteParams },
    responses: {
      200: json(z.object({ vars: z.record(z.string(), z.string()) }), 'the effective variables'),
    },
  }),
  async (c) => {
    const vars = await effectiveOf(requestContext(c), { answer: effective.of(c).inputs });
    return c.json({ vars }, 200);
  },
);

deploysRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/deploys',
    tags,
    summary: `The site's newest deploys (at most ${DEPLOYS_LISTED}), newest first`,
    middleware: listing.middleware,
    request: { params: SiteParams },
    responses: { 200: json(z.object({ deploys: z.array(DeploySchema) }), 'the deploys') },
  }),
  async (c) =>
    c.json(
      {
        deploys: listing.of(c).deploys.map(([id, rollbackOf, at, names]) => ({
          id,
          rollback_of: rollbackOf,
          created_at: iso(new Date(at)),
          env_names: names,
        })),
      },
      200,
    ),
);

deploysRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/deploys',
    tags,
    summary: 'Deploy the site with freshly derived variables',
    middleware: deploying.middleware,
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
    const { site, reads } = deploying.of(c);
    return c.json(await recordDeploy(requestContext(c), site.project.id, site.site.id, null, reads), 201);
  },
);

deploysRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/deploys/{deployId}/rollback',
    tags,
    summary: 'Roll back to an earlier deploy; variables are derived afresh, as for a new deploy',
    middleware: deploying.middleware,
    request: { params: SiteParams.extend({ deployId: z.string() }) },
    responses: { 201: json(DeploySchema, 'the new deploy') },
  }),
  async (c) => {
    const { site, reads } = deploying.of(c);
    const rollbackOf = rolledBack(reads);
    const made = await recordDeploy(requestContext(c), site.project.id, site.site.id, rollbackOf, reads);
    return c.json({ ...made, rollback_of: rollbackOf }, 201);
  },
);
