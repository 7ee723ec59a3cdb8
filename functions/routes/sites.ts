/** Sites of a project (contract §4). */
import { type AppEnv, getHttpDb } from '../context';
import { SLUG_RE } from '../domain/names';
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { projectIdOf } from '../services/caller/api-caller';
import { sitesOfProject } from '../services/reads';
import { removeSite, siteRemovalFrom, siteRemovalQueries } from '../services/site-removal';
import { createSite } from '../services/sites';
import { access, iso, ProjectParam, readsCaller, readWithCaller, requestContext } from './shared';

const SiteSchema = z.object({ id: z.string(), slug: z.string(), created_at: z.string() }).openapi('Site');
const toSite = (s: { id: string; slug: string; createdAt: Date }) => ({
  id: s.id,
  slug: s.slug,
  created_at: iso(s.createdAt),
});

export const sitesRoutes = routeGroup<AppEnv>();

sitesRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites',
    tags: ['sites'],
    summary: 'Create a site (it starts with no connections)',
    request: {
      params: ProjectParam,
      ...jsonBody(
        z.object({ slug: z.string().regex(SLUG_RE, 'lower-case letters, digits and -, 1 to 63') }).strict(),
      ),
    },
    responses: { 201: json(SiteSchema, 'the site'), ...errorResponses(409) },
  }),
  async (c) => {
    const { project } = await access(c, c.req.valid('param').id, 'write');
    const { slug } = c.req.valid('json');
    return c.json(toSite(await createSite(requestContext(c), { projectId: project.id, slug })), 201);
  },
);

sitesRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites',
    tags: ['sites'],
    summary: "The project's sites",
    middleware: [readsCaller],
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ sites: z.array(SiteSchema) }), 'the sites') },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    const [answer] = await readWithCaller(c, [sitesOfProject(getHttpDb(c), ref)]);
    await access(c, ref, 'read');
    const listed = answer.rows[0]?.sites ?? [];
    return c.json(
      { sites: listed.map(([id, slug, at]) => ({ id, slug, created_at: iso(new Date(at)) })) },
      200,
    );
  },
);

sitesRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/sites/{siteId}',
    tags: ['sites'],
    summary: 'Delete a site; its connections and their credentials go with it',
    request: {
      params: ProjectParam.extend({
        siteId: z.string().openapi({ description: 'a site of the project: its id or its slug' }),
      }),
    },
    middleware: [readsCaller],
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    // The caller, the site and the services its own credentials are of in one trip; then one batch.
    const answers = await readWithCaller(
      c,
      siteRemovalQueries(getHttpDb(c), projectIdOf(params.id), params.siteId),
    );
    const { project } = await access(c, params.id, 'write');
    const { found, targets } = siteRemovalFrom(answers);
    if (!found) throw new ApiError('NOT_FOUND', 'site not found');
    await removeSite(requestContext(c), project.id, params.siteId, targets);
    return c.json({ deleted: true as const }, 200);
  },
);
