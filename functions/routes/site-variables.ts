/** A site's user-set variables (contract §5). Derived variables never appear here. */

import { ENV_NAME_RE } from '../domain/env-names';
import type { Role } from '../domain/roles';
import { ApiError } from '../lib/errors';
import { apiRoute, json, jsonBody, z } from '../lib/openapi';
import { isLoaderVariable } from '../lib/shell-safe-env.mjs';
import { read } from '../use-cases/caller/declared-reads';
import { readUserVars, writeUserVars } from '../use-cases/site-variables';
import { siteOfProject } from '../use-cases/sites';
import { declaredRoutes, declareReads } from './declared-reads';
import { ProjectParam, requestContext } from './shared';

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

/**
 * The variables of a PUT: `__proto__`, which a record cannot hold (it would vanish), is refused,
 * and so is a loader variable (contract §9): a write member could otherwise make whoever runs
 * the site's variables locally (`tether run`, a sourced `.env`) load code of its choosing.
 */
const VarsInput = z.preprocess((input, ctx) => {
  if (typeof input === 'object' && input !== null && Object.hasOwn(input, '__proto__')) {
    ctx.addIssue({ code: 'custom', path: ['__proto__'], message: '__proto__ cannot be a variable name' });
  }
  if (typeof input === 'object' && input !== null) {
    for (const name of Object.keys(input).filter(isLoaderVariable).sort()) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `${name} is a loader variable (it makes programs load code of its choosing) and is never stored as a site variable`,
      });
    }
  }
  return input;
}, VarsSchema);

export const envRoutes = declaredRoutes();

/** The site the path names, at `role` (its 404 after the caller's refusals, before a body's 400). */
const siteRead = (role: Role) =>
  declareReads({ role }, ({ http, path, project }) => ({
    site: read(siteOfProject(http, project, path.siteId ?? ''), ([site]) => {
      if (!site) throw new ApiError('NOT_FOUND', 'site not found');
      return site;
    }),
  }));
const reader = siteRead('read');
const writer = siteRead('write');

envRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/env',
    tags: ['variables'],
    summary: "The site's user-set variables",
    middleware: reader.middleware,
    request: { params: SiteParams },
    responses: { 200: json(z.object({ vars: VarsSchema }), 'the variables') },
  }),
  async (c) => {
    return c.json({ vars: await readUserVars(c.get('config'), reader.of(c).site) }, 200);
  },
);

envRoutes.openapi(
  apiRoute({
    method: 'put',
    path: '/projects/{id}/sites/{siteId}/env',
    tags: ['variables'],
    summary: "Replace the site's user-set variables",
    description:
      'Loader variables (NODE_OPTIONS, LD_PRELOAD, LD_LIBRARY_PATH, DYLD_*, BASH_ENV, ENV, PYTHONSTARTUP, PERL5OPT, RUBYOPT, PATH) are 400 VALIDATION_FAILED naming the field: they would make whoever runs the variables locally load code.',
    middleware: writer.middleware,
    request: { params: SiteParams, ...jsonBody(z.object({ vars: VarsInput }).strict()) },
    responses: { 200: json(z.object({ vars: VarsSchema }), 'the variables') },
  }),
  async (c) => {
    const { projectId, site } = writer.of(c);
    const { vars } = c.req.valid('json');
    if (Object.keys(vars).length > 500)
      throw new ApiError('BAD_REQUEST', 'vars: at most 500 variables', 'vars');
    if (!(await writeUserVars(requestContext(c), { projectId, site, vars })))
      throw new ApiError('NOT_FOUND', 'site not found');
    return c.json({ vars }, 200);
  },
);
