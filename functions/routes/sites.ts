/** Sites of a project (contract §4). */
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { readMany, rowsRead } from '../use-cases/caller/declared-reads';
import { sitesOfProject } from '../use-cases/listing-reads';
import { removeSite, siteRemovalFrom, siteRemovalQueries } from '../use-cases/site-removal';
import { createSite } from '../use-cases/sites';
import { declaredRoutes, declareReads } from './declared-reads';
import { iso, NewSlug, ProjectParam, projectListingRoute, requestContext } from './shared';

const SiteSchema = z.object({ id: z.string(), slug: z.string(), created_at: z.string() }).openapi('Site');
const toSite = (s: { id: string; slug: string; createdAt: Date }) => ({
  id: s.id,
  slug: s.slug,
  created_at: iso(s.createdAt),
});

export const sitesRoutes = declaredRoutes();

/** The project, at write. */
const writer = declareReads({ role: 'write' });
/** The project's sites, at read. */
const listing = declareReads({ role: 'read' }, ({ http, path }) => ({
  answer: rowsRead(sitesOfProject(http, path.id ?? '')),
}));
/** The site the path names and the services its own credentials are of, at write (its 404 after the caller's). */
const removal = declareReads({ role: 'write' }, ({ http, path, project }) => ({
  removal: readMany(siteRemovalQueries(http, project, path.siteId ?? ''), (answers) => {
    const { found, targets } = siteRemovalFrom(answers);
    if (!found) throw new ApiError('NOT_FOUND', 'site not found');
    return targets;
  }),
}));

sitesRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites',
    tags: ['sites'],
    summary: 'Create a site (it starts with no connections)',
    middleware: writer.middleware,
    request: {
      params: ProjectParam,
      ...jsonBody(z.object({ slug: NewSlug }).strict()),
    },
    responses: { 201: json(SiteSchema, 'the site'), ...errorResponses(409) },
  }),
  async (c) => {
    const { projectId } = writer.of(c);
    const { slug } = c.req.valid('json');
    return c.json(toSite(await createSite(requestContext(c), { projectId, slug })), 201);
  },
);

sitesRoutes.openapi(
  projectListingRoute({
    path: '/projects/{id}/sites',
    tag: 'sites',
    summary: "The project's sites",
    middleware: listing.middleware,
    key: 'sites',
    item: SiteSchema,
    listed: 'the sites',
  }),
  async (c) => {
    const listed = listing.of(c).answer.rows[0]?.sites ?? [];
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
    middleware: removal.middleware,
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted') },
  }),
  async (c) => {
    // The caller, the site and the services its own credentials are of in one trip; then one batch.
    const { projectId, removal: targets } = removal.of(c);
    await removeSite(requestContext(c), projectId, c.req.valid('param').siteId, targets);
    return c.json({ deleted: true as const }, 200);
  },
);
