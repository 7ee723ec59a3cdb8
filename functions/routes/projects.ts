/** Projects and their members (contract §3). */
import { ROLES } from '../domain/roles';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { rowsRead } from '../use-cases/caller/declared-reads';
import type { Project } from '../use-cases/caller/project-access';
import { createProject, listProjects, removeMember, setMember } from '../use-cases/projects';
import { declaredRoutes, declareReads } from './declared-reads';
import { iso, NewSlug, ProjectParam, requestContext, requireUuid } from './shared';

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

export const projectsRoutes = declaredRoutes();

/** An account caller. */
const account = declareReads({ role: 'account' });
/** The projects the calling account belongs to. */
const listing = declareReads({ role: 'account' }, ({ http, account }) => ({
  rows: rowsRead(listProjects(http, account)),
}));
/** The project, at read. */
const reader = declareReads({ role: 'read' });
/** The project, at admin. */
const admin = declareReads({ role: 'admin' });

projectsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects',
    tags: ['projects'],
    summary: 'Create a project; the caller becomes its owner',
    middleware: account.middleware,
    request: jsonBody(
      z
        .object({
          name: z.string().trim().min(1).max(100),
          slug: NewSlug.optional(),
        })
        .strict(),
    ),
    responses: { 201: json(ProjectSchema, 'the project'), ...errorResponses(409) },
  }),
  async (c) => {
    const { accountId } = account.of(c);
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
    middleware: listing.middleware,
    responses: { 200: json(z.object({ projects: z.array(ProjectSchema) }), 'the projects') },
  }),
  async (c) => {
    return c.json({ projects: listing.of(c).rows.map((r) => toProject(r.project, r.role)) }, 200);
  },
);

projectsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}',
    tags: ['projects'],
    summary: 'One project',
    middleware: reader.middleware,
    request: { params: ProjectParam },
    responses: { 200: json(ProjectSchema, 'the project') },
  }),
  async (c) => {
    const { project, role } = reader.of(c);
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
    middleware: admin.middleware,
    request: { params: MemberParams, ...jsonBody(z.object({ role: z.enum(ROLES) }).strict()) },
    responses: {
      200: json(z.object({ account_id: z.string(), role: z.enum(ROLES) }), 'the membership'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { role } = c.req.valid('json');
    const { projectId, role: callerRole } = admin.of(c);
    const accountId = requireUuid(params.accountId, 'account');
    await setMember(requestContext(c), { projectId, callerRole, accountId, role });
    return c.json({ account_id: accountId, role }, 200);
  },
);

projectsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/members/{accountId}',
    tags: ['projects'],
    summary: 'Remove a member',
    middleware: admin.middleware,
    request: { params: MemberParams },
    responses: {
      200: json(z.object({ removed: z.boolean() }), 'whether a member was removed'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { projectId, role: callerRole } = admin.of(c);
    const accountId = requireUuid(params.accountId, 'account');
    const removed = await removeMember(requestContext(c), { projectId, callerRole, accountId });
    return c.json({ removed }, 200);
  },
);
