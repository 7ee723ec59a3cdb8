/** Projects and their members: creation with a free slug, listing, and owner-safe role changes. */
import { and, eq, or, type SQL } from 'drizzle-orm';
import type { Db, HttpDb, Tx } from '../../db/client';
import type { ProjectRow } from '../../db/rows';
import { accounts, projectMembers, projects } from '../../db/schema';
import { slugify } from '../domain/names';
import { type Role, roleAtLeast } from '../domain/roles';
import { ApiError } from '../lib/errors';
import { newId, randomLowerAlnum } from '../lib/ids';

/**
 * Creates a project owned by `accountId`. Without a slug it takes the name's, or that plus a
 * random suffix when taken; a slug asked for and taken is 409.
 */
export async function createProject(
  db: Db,
  accountId: string,
  body: { name: string; slug?: string },
): Promise<ProjectRow> {
  const base = slugify(body.name) || 'project';
  for (let attempt = 0; attempt < 5; attempt++) {
    const slug = body.slug ?? (attempt === 0 ? base : `${base.slice(0, 56)}-${randomLowerAlnum(6)}`);
    const project = { id: newId(), slug, name: body.name };
    const created = await db.transaction(async (tx) => {
      const [row] = await tx.insert(projects).values(project).onConflictDoNothing().returning();
      if (!row) return undefined;
      await tx.insert(projectMembers).values({ projectId: row.id, accountId, role: 'owner' });
      return row;
    });
    if (created) return created;
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
 * Locks the project's owner rows and `accountId`'s row, in account order, and reads them: two
 * owners demoting (or removing) each other at once then run one after the other, and the second
 * sees the first's change (a row that stopped being an owner no longer matches its condition),
 * so at least one owner always remains (issue 16). One statement.
 */
async function lockOwnersAnd(tx: Tx, projectId: string, accountId: string) {
  const rows = await tx
    .select({ accountId: projectMembers.accountId, role: projectMembers.role })
    .from(projectMembers)
    .where(
      and(
        eq(projectMembers.projectId, projectId),
        or(eq(projectMembers.role, 'owner'), eq(projectMembers.accountId, accountId)),
      ),
    )
    .orderBy(projectMembers.accountId)
    .for('update');
  return {
    current: rows.find((r) => r.accountId === accountId),
    otherOwners: rows.filter((r) => r.role === 'owner' && r.accountId !== accountId).length,
  };
}

/** 409 unless someone other than the member leaving still owns the project. */
function assertAnotherOwner(otherOwners: number): void {
  if (otherOwners === 0) throw new ApiError('CONFLICT', 'a project must keep at least one owner');
}

/**
 * Grants `role` to account `accountId` on the project. Only an owner grants or changes the
 * owner role, and the last owner stays one.
 */
export function setMember(
  db: Db,
  projectId: string,
  callerRole: Role | null,
  accountId: string,
  role: Role,
): Promise<void> {
  return db.transaction(async (tx) => {
    const [target] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    if (!target) throw new ApiError('NOT_FOUND', 'account not found');
    const { current, otherOwners } = await lockOwnersAnd(tx, projectId, accountId);
    const touchesOwner = role === 'owner' || current?.role === 'owner';
    if (touchesOwner && !roleAtLeast(callerRole ?? 'read', 'owner')) {
      throw new ApiError('FORBIDDEN', 'only an owner may grant or change the owner role');
    }
    if (current?.role === 'owner' && role !== 'owner') assertAnotherOwner(otherOwners);
    await tx
      .insert(projectMembers)
      .values({ projectId, accountId, role })
      .onConflictDoUpdate({ target: [projectMembers.projectId, projectMembers.accountId], set: { role } });
  });
}

/** Removes the member; false when it was none. Only an owner removes an owner, never the last. */
export function removeMember(
  db: Db,
  projectId: string,
  callerRole: Role | null,
  accountId: string,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { current, otherOwners } = await lockOwnersAnd(tx, projectId, accountId);
    if (!current) return false;
    if (current.role === 'owner') {
      if (callerRole !== 'owner') throw new ApiError('FORBIDDEN', 'only an owner may remove an owner');
      assertAnotherOwner(otherOwners);
    }
    await tx
      .delete(projectMembers)
      .where(and(eq(projectMembers.projectId, projectId), eq(projectMembers.accountId, accountId)));
    return true;
  });
}
