/** Projects and their members (CONTRACT §3). */
import { and, count, eq, ne } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { accounts, projectMembers, projects } from '../../db/schema';
import { type AppEnv, getDb, getHttpDb } from '../context';
import { SLUG_RE, slugify } from '../domain/names';
import { ROLES, roleAtLeast } from '../domain/roles';
import { ApiError, conflict, forbidden, notFound } from '../lib/errors';
import { newId, randomLowerAlnum } from '../lib/ids';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { requireAccount } from '../services/access';
import { access, callerAccount, iso, ProjectParam, readsCaller, readWithCaller, requireUuid } from './shared';

const ProjectSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    created_at: z.string(),
    role: z.enum(ROLES).optional(),
  })
  .openapi('Project');

const toProject = (p: typeof projects.$inferSelect, role?: (typeof ROLES)[number] | null) => ({
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
    const body = c.req.valid('json');
    const base = slugify(body.name) || 'project';
    const db = getDb(c);
    for (let attempt = 0; attempt < 5; attempt++) {
      const slug = body.slug ?? (attempt === 0 ? base : `${base.slice(0, 56)}-${randomLowerAlnum(6)}`);
      const project = { id: newId(), slug, name: body.name };
      const created = await db.transaction(async (tx) => {
        const [row] = await tx.insert(projects).values(project).onConflictDoNothing().returning();
        if (!row) return undefined;
        await tx.insert(projectMembers).values({ projectId: row.id, accountId, role: 'owner' });
        return row;
      });
      if (created) return c.json(toProject(created), 201);
      if (body.slug) throw conflict(`the slug ${body.slug} is taken`);
    }
    throw conflict('could not find a free slug; pass one');
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
    const [rows] = await readWithCaller(c, [
      getHttpDb(c)
        .select({ project: projects, role: projectMembers.role })
        .from(projectMembers)
        .innerJoin(projects, eq(projects.id, projectMembers.projectId))
        .where(eq(projectMembers.accountId, callerAccount(c)))
        .orderBy(projects.createdAt),
    ]);
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
    const db = getDb(c);
    return db.transaction(async (tx) => {
      const [target] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
      if (!target) throw notFound('account');
      const [current] = await tx
        .select({ role: projectMembers.role })
        .from(projectMembers)
        .where(and(eq(projectMembers.projectId, project.id), eq(projectMembers.accountId, accountId)))
        .for('update');
      const touchesOwner = role === 'owner' || current?.role === 'owner';
      if (touchesOwner && !roleAtLeast(callerRole ?? 'read', 'owner')) {
        throw forbidden('only an owner may grant or change the owner role');
      }
      if (current?.role === 'owner' && role !== 'owner') await assertAnotherOwner(tx, project.id, accountId);
      await tx
        .insert(projectMembers)
        .values({ projectId: project.id, accountId, role })
        .onConflictDoUpdate({ target: [projectMembers.projectId, projectMembers.accountId], set: { role } });
      return c.json({ account_id: accountId, role }, 200);
    });
  },
);

async function assertAnotherOwner(tx: Tx, projectId: string, leaving: string): Promise<void> {
  const [row] = await tx
    .select({ n: count() })
    .from(projectMembers)
    .where(
      and(
        eq(projectMembers.projectId, projectId),
        eq(projectMembers.role, 'owner'),
        ne(projectMembers.accountId, leaving),
      ),
    );
  if (!row || row.n === 0) throw new ApiError('CONFLICT', 'a project must keep at least one owner');
}

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
    return getDb(c).transaction(async (tx) => {
      const [current] = await tx
        .select({ role: projectMembers.role })
        .from(projectMembers)
        .where(and(eq(projectMembers.projectId, project.id), eq(projectMembers.accountId, accountId)))
        .for('update');
      if (!current) return c.json({ removed: false }, 200);
      if (current.role === 'owner') {
        if (callerRole !== 'owner') throw forbidden('only an owner may remove an owner');
        await assertAnotherOwner(tx, project.id, accountId);
      }
      await tx
        .delete(projectMembers)
        .where(and(eq(projectMembers.projectId, project.id), eq(projectMembers.accountId, accountId)));
      return c.json({ removed: true }, 200);
    });
  },
);
