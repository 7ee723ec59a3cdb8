/** Projects and their members: creation with a free slug, listing, and owner-safe role changes. */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { HttpDb } from '../../db/client';
import type { ProjectRow } from '../../db/rows';
import { projectMembers, projects } from '../../db/schema';
import { slugify } from '../domain/names';
import { type Role, roleAtLeast } from '../domain/roles';
import { ApiError } from '../lib/errors';
import { isUuid, newId, randomLowerAlnum } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { activityQuery, activityStatement } from './activity';
import { guard, runGuarded } from './store/guarded-write';

/**
 * Creates a project owned by `accountId`. Without a slug it takes the name's, or that plus a
 * random suffix when taken; a slug asked for and taken is 409. Each attempt is one statement:
 * the owner row is inserted only from the project row that statement inserted.
 */
export async function createProject(
  ctx: RequestContext,
  { accountId, body }: { accountId: string; body: { name: string; slug?: string } },
): Promise<ProjectRow> {
  const db = ctx.http;
  // A name shaped like a UUID gives no slug of its own: the slug would read as an id (contract §9).
  const named = slugify(body.name);
  const base = named && !isUuid(named) ? named : 'project';
  for (let attempt = 0; attempt < 5; attempt++) {
    const slug = body.slug ?? (attempt === 0 ? base : `${base.slice(0, 56)}-${randomLowerAlnum(6)}`);
    const id = newId();
    const event = {
      action: 'project.create',
      target: { type: 'project', id, name: body.name },
      projectId: id,
      details: { slug },
    };
    const { rows } = await db.execute<{ created_at: string }>(sql`
      with p as (
        insert into projects (id, slug, name) values (${id}::uuid, ${slug}, ${body.name})
        on conflict do nothing returning id, created_at),
      a as (${activityStatement(ctx.activity, event, sql`exists (select 1 from p)`)})
      insert into project_members (project_id, account_id, role)
      select p.id, ${accountId}::uuid, 'owner' from p
      returning (select created_at from p)`);
    const [row] = rows;
    if (row) return { id, slug, name: body.name, createdAt: new Date(row.created_at) };
    if (body.slug) throw new ApiError('CONFLICT', `the slug ${body.slug} is taken`);
  }
  throw new ApiError('CONFLICT', 'could not find a free slug; pass one');
}

/**
 * The projects account `accountId` belongs to, oldest first, with its role in each: a query not
 * yet sent, so a route can batch it with the caller's lookup.
 */
export function listProjects(db: HttpDb, accountId: SQL | string) {
  return db
    .select({ project: projects, role: projectMembers.role })
    .from(projectMembers)
    .innerJoin(projects, eq(projects.id, projectMembers.projectId))
    .where(eq(projectMembers.accountId, accountId))
    .orderBy(projects.createdAt);
}

/**
 * Locks the project's owner rows and `accountId`'s row, in account order: two owners demoting
 * (or removing) each other at once then run one after the other, and the second's guards, each
 * a statement of its own and so reading after the first committed, see the first's change, so
 * at least one owner always remains.
 */
const lockOwnersAnd = (projectId: string, accountId: string): SQL => sql`
  select account_id from project_members
   where project_id = ${projectId}::uuid and (role = 'owner' or account_id = ${accountId}::uuid)
   order by account_id for update`;

/** SQL: whether account `accountId` owns the project now. */
const ownsNow = (projectId: string, accountId: string): SQL => sql`exists (
  select 1 from project_members where project_id = ${projectId}::uuid and account_id = ${accountId}::uuid and role = 'owner')`;

/** SQL: whether someone other than `accountId` owns the project now. */
const anotherOwner = (projectId: string, accountId: string): SQL => sql`exists (
  select 1 from project_members where project_id = ${projectId}::uuid and account_id <> ${accountId}::uuid and role = 'owner')`;

/** A boolean known before the batch, as SQL. */
const literal = (value: boolean): SQL => sql.raw(value ? 'true' : 'false');

/** A member as an Activity target: the account, named by its e-mail. */
const memberTarget = (accountId: string) => ({
  type: 'member',
  id: accountId,
  name: sql`select email from accounts where id = ${accountId}::uuid`,
});

const LAST_OWNER = { code: 'CONFLICT', message: 'a project must keep at least one owner' } as const;

/**
 * Grants `role` to account `accountId` on the project. Only an owner grants or changes the
 * owner role, and the last owner stays one. One guarded batch (use-cases/store/guarded-write.ts).
 */
export async function setMember(
  ctx: RequestContext,
  {
    projectId,
    callerRole,
    accountId,
    role,
  }: { projectId: string; callerRole: Role | null; accountId: string; role: Role },
): Promise<void> {
  const db = ctx.http;
  const callerOwns = roleAtLeast(callerRole ?? 'read', 'owner');
  const touchesOwner = sql`(${literal(role === 'owner')} or ${ownsNow(projectId, accountId)})`;
  await runGuarded(db, [
    db.execute(lockOwnersAnd(projectId, accountId)),
    db.execute(
      guard(sql`exists (select 1 from accounts where id = ${accountId}::uuid)`, {
        code: 'NOT_FOUND',
        message: 'account not found',
      }),
    ),
    db.execute(
      guard(sql`${literal(callerOwns)} or not ${touchesOwner}`, {
        code: 'FORBIDDEN',
        message: 'only an owner may grant or change the owner role',
      }),
    ),
    db.execute(
      guard(
        sql`${literal(role === 'owner')} or not ${ownsNow(projectId, accountId)} or ${anotherOwner(projectId, accountId)}`,
        LAST_OWNER,
      ),
    ),
    activityQuery(db, ctx.activity, {
      action: 'member.role',
      target: memberTarget(accountId),
      projectId,
      details: { role },
    }),
    db
      .insert(projectMembers)
      .values({ projectId, accountId, role })
      .onConflictDoUpdate({ target: [projectMembers.projectId, projectMembers.accountId], set: { role } }),
  ]);
}

/**
 * Removes the member; false when it was none. Only an owner removes an owner, never the last.
 * One guarded batch.
 */
export async function removeMember(
  ctx: RequestContext,
  { projectId, callerRole, accountId }: { projectId: string; callerRole: Role | null; accountId: string },
): Promise<boolean> {
  const db = ctx.http;
  const owns = ownsNow(projectId, accountId);
  const answers = await runGuarded(db, [
    db.execute(lockOwnersAnd(projectId, accountId)),
    db.execute(
      guard(sql`${literal(callerRole === 'owner')} or not ${owns}`, {
        code: 'FORBIDDEN',
        message: 'only an owner may remove an owner',
      }),
    ),
    db.execute(guard(sql`not ${owns} or ${anotherOwner(projectId, accountId)}`, LAST_OWNER)),
    activityQuery(
      db,
      ctx.activity,
      { action: 'member.remove', target: memberTarget(accountId), projectId },
      sql`exists (select 1 from project_members where project_id = ${projectId}::uuid and account_id = ${accountId}::uuid)`,
    ),
    db
      .delete(projectMembers)
      .where(and(eq(projectMembers.projectId, projectId), eq(projectMembers.accountId, accountId)))
      .returning({ accountId: projectMembers.accountId }),
  ]);
  return (answers[4] as unknown[]).length > 0;
}
