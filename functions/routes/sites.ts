/** Sites of a project (CONTRACT §4). */
import { and, eq } from 'drizzle-orm';
import { sites } from '../../db/schema';
import { type AppEnv, getDb, getHttpDb } from '../context';
import { SLUG_RE, siteRef } from '../domain/names';
import { conflict, notFound } from '../lib/errors';
import { newId } from '../lib/ids';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { afterCommit } from '../services/connections/apply';
import { sitesOfProject } from '../services/reads';
import { removeSiteConnections } from '../services/site-removal';
import { connectionDeps } from './connection-schemas';
import { access, iso, ProjectParam, readsCaller, readWithCaller } from './shared';

const SiteSchema = z.object({ id: z.string(), slug: z.string(), created_at: z.string() }).openapi('Site');
const toSite = (s: typeof sites.$inferSelect) => ({ id: s.id, slug: s.slug, created_at: iso(s.createdAt) });

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
    const [row] = await getHttpDb(c)
      .insert(sites)
      .values({ id: newId(), projectId: project.id, slug })
      .onConflictDoNothing()
      .returning();
    if (!row) throw conflict(`a site with slug ${slug} already exists in this project`);
    return c.json(toSite(row), 201);
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
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { project } = await access(c, params.id, 'write');
    const ref = siteRef(params.siteId);
    if (ref === null) throw notFound('site');
    const db = getDb(c);
    const cleanupIds = await db.transaction(async (tx) => {
      const [site] = await tx
        .select({ id: sites.id })
        .from(sites)
        .where(
          and('id' in ref ? eq(sites.id, ref.id) : eq(sites.slug, ref.slug), eq(sites.projectId, project.id)),
        )
        .for('update');
      if (!site) return null;
      const ids = await removeSiteConnections(tx, site.id);
      await tx.delete(sites).where(eq(sites.id, site.id));
      return ids;
    });
    if (!cleanupIds) throw notFound('site');
    // The credentials go at once, as on a disconnect (the queue retries what fails).
    await afterCommit(connectionDeps(c), { inserted: [], deliveryIds: [], cleanupIds });
    return c.json({ deleted: true as const }, 200);
  },
);
