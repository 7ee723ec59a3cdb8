/**
 * What a site's app is handed (CONTRACT §5): the effective variables, deploys and rollbacks.
 * Every deploy and every rollback derives the variables afresh, so a rollback gets exactly
 * what a new deploy gets (current credentials and connections, never a stale copy).
 */
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { deploys } from '../../db/schema';
import { type AppEnv, getDb, getHttpDb } from '../context';
import { notFound } from '../lib/errors';
import { isUuid, newId } from '../lib/ids';
import { apiRoute, json, routeGroup, z } from '../lib/openapi';
import { deriveSiteEnv } from '../services/connections/derive';
import { siteAccess } from '../services/connections/site-access';
import { switchLegacyNow } from '../services/credentials/switch';
import { DEPLOYS_LISTED, type DeployTuple, deploysOfSite } from '../services/deploys';
import { access, iso, ProjectParam, readsCaller, readWithCaller, siteBeforeBody } from './shared';

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

/** The site's effective variables now; 404 when the site went away meanwhile. */
async function effective(c: Context<AppEnv>, siteId: string): Promise<Record<string, string>> {
  const config = c.get('config');
  const env = await deriveSiteEnv(getHttpDb(c), config, c.get('services').adapters, siteId);
  if (!env) throw notFound('site');
  return env.effective;
}

/** Records a deploy of what the site is handed now. */
async function deploy(c: Context<AppEnv>, siteId: string, rollbackOf: string | null, projectId: string) {
  const config = c.get('config');
  // Legacy sites switch to their own credentials at their next deploy, which then hands them.
  await switchLegacyNow(
    { db: getDb(c), config, adapters: c.get('services').adapters, queue: c.get('services').queue },
    projectId,
  );
  const names = Object.keys(await effective(c, siteId)).sort();
  const [row] = await getHttpDb(c)
    .insert(deploys)
    .values({ id: newId(), siteId, rollbackOf, envNames: names })
    .returning();
  const d = row as typeof deploys.$inferSelect;
  return { id: d.id, created_at: d.createdAt.toISOString(), env_names: d.envNames };
}

export const deploysRoutes = routeGroup<AppEnv>();

deploysRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/env/effective',
    tags: ['variables'],
    summary: 'What the app is handed: user variables overlaid with derived ones (derived win)',
    request: { params: SiteParams },
    responses: {
      200: json(z.object({ vars: z.record(z.string(), z.string()) }), 'the effective variables'),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const ctx = await siteAccess(getHttpDb(c), c.get('principal'), params.id, params.siteId, 'write');
    return c.json({ vars: await effective(c, ctx.site.id) }, 200);
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
    if (!row) throw notFound('site');
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
    request: {
      params: SiteParams,
      body: {
        content: {
          'application/json': {
            schema: z
              .object({})
              .openapi({ description: '{}; fields a platform adds (a ref, a message) are ignored' }),
          },
        },
        required: false,
      },
    },
    responses: { 201: json(DeploySchema, 'the deploy') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const ctx = await siteAccess(getHttpDb(c), c.get('principal'), params.id, params.siteId, 'write');
    return c.json(await deploy(c, ctx.site.id, null, ctx.project.id), 201);
  },
  siteBeforeBody,
);

deploysRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/sites/{siteId}/deploys/{deployId}/rollback',
    tags,
    summary: 'Roll back to an earlier deploy; variables are derived afresh, as for a new deploy',
    request: { params: SiteParams.extend({ deployId: z.string() }) },
    responses: { 201: json(DeploySchema, 'the new deploy') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const ctx = await siteAccess(getHttpDb(c), c.get('principal'), params.id, params.siteId, 'write');
    if (!isUuid(params.deployId)) throw notFound('deploy');
    const deployId = params.deployId.toLowerCase();
    const [target] = await getHttpDb(c)
      .select({ id: deploys.id })
      .from(deploys)
      .where(and(eq(deploys.id, deployId), eq(deploys.siteId, ctx.site.id)));
    if (!target) throw notFound('deploy');
    return c.json(
      { ...(await deploy(c, ctx.site.id, target.id, ctx.project.id)), rollback_of: target.id },
      201,
    );
  },
);
