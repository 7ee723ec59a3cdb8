/** A site's user-set variables (contract §5). Derived variables never appear here. */

import { type AppEnv, getHttpDb } from '../context';
import { ENV_NAME_RE } from '../domain/env-names';
import { ApiError } from '../lib/errors';
import { apiRoute, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { projectIdOf } from '../services/caller/api-caller';
import { readUserVars, writeUserVars } from '../services/site-variables';
import { siteOfProject } from '../services/sites';
import {
  access,
  loadSite,
  ProjectParam,
  readsCaller,
  readWithCaller,
  requestContext,
  siteBeforeBody,
} from './shared';

/** `:id` and `:siteId`. */
export const SiteParams = ProjectParam.extend({
  siteId: z.string().openapi({ description: 'a site of the project: its id or its slug' }),
});

const VarsSchema = z
  .record(
    z.string().regex(ENV_NAME_RE, 'variable names are letters, digits and _, not starting with a digit'),
    z.string().max(32_768),
  )
  .openapi('Vars');

/** The variables of a PUT: `__proto__`, which a record cannot hold (it would vanish), is refused. */
const VarsInput = z.preprocess((input, ctx) => {
  if (typeof input === 'object' && input !== null && Object.hasOwn(input, '__proto__')) {
    ctx.addIssue({ code: 'custom', path: ['__proto__'], message: '__proto__ cannot be a variable name' });
  }
  return input;
}, VarsSchema);

export const envRoutes = routeGroup<AppEnv>();

envRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/env',
    tags: ['variables'],
    summary: "The site's user-set variables",
    middleware: [readsCaller],
    request: { params: SiteParams },
    responses: { 200: json(z.object({ vars: VarsSchema }), 'the variables') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const [[site]] = await readWithCaller(c, [
      siteOfProject(getHttpDb(c), projectIdOf(params.id), params.siteId),
    ]);
    await access(c, params.id, 'read');
    if (!site) throw new ApiError('NOT_FOUND', 'site not found');
    return c.json({ vars: await readUserVars(c.get('config'), site) }, 200);
  },
);

envRoutes.openapi(
  apiRoute({
    method: 'put',
    path: '/projects/{id}/sites/{siteId}/env',
    tags: ['variables'],
    summary: "Replace the site's user-set variables",
    request: { params: SiteParams, ...jsonBody(z.object({ vars: VarsInput }).strict()) },
    responses: { 200: json(z.object({ vars: VarsSchema }), 'the variables') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { project } = await access(c, params.id, 'write');
    const { vars } = c.req.valid('json');
    if (Object.keys(vars).length > 500) {
      // An unknown site is 404 before the body's 400.
      await loadSite(c, project.id, params.siteId);
      throw new ApiError('BAD_REQUEST', 'vars: at most 500 variables', 'vars');
    }
    if (!(await writeUserVars(requestContext(c), { projectId: project.id, siteId: params.siteId, vars })))
      throw new ApiError('NOT_FOUND', 'site not found');
    return c.json({ vars }, 200);
  },
  siteBeforeBody,
);
