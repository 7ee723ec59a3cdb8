/** Projects and their members (contract §3). */
import { type AppEnv, getHttpDb } from '../context';
import { SLUG_RE } from '../domain/names';
import { ROLES } from '../domain/roles';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { type Project, requireAccount } from '../services/caller/project-access';
import { createProject, listProjects, removeMember, setMember } from '../services/projects';
import {
  access,
  callerAccount,
  iso,
  ProjectParam,
  readsCaller,
  readWithCaller,
  requestContext,
  requireUuid,
} from './shared';

const ProjectSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    created_at: z.string(),
    role: z.enum(ROLES).optional(),
  })
  .openapi('Project');

const toProject = (p: Project, role?: (typeof ROLES)[number] | null) => ({
  id: p.id,
  slug: p.slug,
  name: p.name,
  created_at: iso(p.createdAt),
  ...(role ? { role } : {}),
});

export const projectsRoutes = routeGroup<AppEnv>();

projectsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects',
    tags: ['projects'],
    summary: 'Create a project; the caller becomes its owner',
    request: jsonBody(
      z
        .object({
          name: z.string().trim().min(1).max(100),
          slug: z.string().regex(SLUG_RE, 'lower-case letters, digits and -, 1 to 63').optional(),
        })
        .strict(),
    ),
    responses: { 201: json(ProjectSchema, 'the project'), ...errorResponses(409) },
  }),
  async (c) => {
    const accountId = requireAccount(c.get('principal'));
    return c.json(
      toProject(await createProject(requestContext(c), { accountId, body: c.req.valid('json') })),
      201,
    );
  },
);

projectsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects',
    tags: ['projects'],
    summary: 'Projects the caller belongs to',
    middleware: [readsCaller],
    responses: { 200: json(z.object({ projects: z.array(ProjectSchema) }), 'the projects') },
  }),
  async (c) => {
    const [rows] = await readWithCaller(c, [listProjects(getHttpDb(c), callerAccount(c))]);
    requireAccount(c.get('principal'));
    return c.json({ projects: rows.map((r) => toProject(r.project, r.role)) }, 200);
  },
);

projectsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}',
    tags: ['projects'],
    summary: 'One project',
    request: { params: ProjectParam },
    responses: { 200: json(ProjectSchema, 'the project') },
  }),
  async (c) => {
    const { project, role } = await access(c, c.req.valid('param').id, 'read');
    return c.json(toProject(project, role), 200);
  },
);

const MemberParams = ProjectParam.extend({ accountId: z.string() });

projectsRoutes.openapi(
  apiRoute({
    method: 'put',
    path: '/projects/{id}/members/{accountId}',
    tags: ['projects'],
    summary: 'Grant a role (admin; owner to grant or change owner)',
    request: { params: MemberParams, ...jsonBody(z.object({ role: z.enum(ROLES) }).strict()) },
    responses: {
      200: json(z.object({ account_id: z.string(), role: z.enum(ROLES) }), 'the membership'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { role } = c.req.valid('json');
    const { project, role: callerRole } = await access(c, params.id, 'admin');
    const accountId = requireUuid(params.accountId, 'account');
    await setMember(requestContext(c), { projectId: project.id, callerRole, accountId, role });
    return c.json({ account_id: accountId, role }, 200);
  },
);

projectsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/members/{accountId}',
    tags: ['projects'],
    summary: 'Remove a member',
    request: { params: MemberParams },
    responses: {
      200: json(z.object({ removed: z.boolean() }), 'whether a member was removed'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { project, role: callerRole } = await access(c, params.id, 'admin');
    const accountId = requireUuid(params.accountId, 'account');
    const removed = await removeMember(requestContext(c), { projectId: project.id, callerRole, accountId });
    return c.json({ removed }, 200);
  },
);
