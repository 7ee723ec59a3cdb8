/**
 * Who may do what on a project: roles for accounts, capabilities for project API keys.
 * Non-members get 404 so a project's existence is not revealed.
 */
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../../db/client';
import type { ProjectRow } from '../../../db/rows';
import { type ApiKeyCapabilities, projectMembers, projects } from '../../../db/schema';
import { type Role, roleAtLeast } from '../../domain/roles';
import { ApiError } from '../../lib/errors';
import { type Membership, type Principal, projectRefCondition } from './api-caller';

export type { ApiKeyCapabilities };

/** A project row as the API shows it. */
export type Project = ProjectRow;

/** Throws 401 for no or bad credentials; returns the account id of an account caller, else 403. */
export function requireAccount(principal: Principal, only?: 'token'): string {
  if (principal.type === 'anonymous' || principal.type === 'invalid') throw new ApiError('UNAUTHORIZED');
  if (principal.type === 'api_key') throw new ApiError('FORBIDDEN', 'project API keys cannot use this route');
  if (principal.type === 'operator')
    throw new ApiError('FORBIDDEN', 'the operator token can only create accounts');
  if (only === 'token' && principal.via !== 'token')
    throw new ApiError('FORBIDDEN', 'this route needs an account token');
  return principal.accountId;
}

/** Finds a project by id or slug. */
export async function findProject(db: Queryable, idOrSlug: string): Promise<Project | undefined> {
  const [row] = await db.select().from(projects).where(projectRefCondition(idOrSlug)).limit(1);
  return row;
}

/** What a project route needs from its caller. */
export interface AccessNeed {
  role: Role;
  /** When set, a project API key whose capabilities satisfy this may call the route too. */
  keyMay?: (capabilities: ApiKeyCapabilities) => boolean;
}

/** The project and how the caller reaches it. */
export interface ProjectAccess {
  project: Project;
  role: Role | null;
  principal: Principal;
}

/** Resolves `:id` for the caller, enforcing the role (or key capability) the route needs. */
export async function projectAccess(
  db: Queryable,
  principal: Principal,
  idOrSlug: string,
  need: AccessNeed,
  prefetched?: Membership,
): Promise<ProjectAccess> {
  if (principal.type === 'anonymous' || principal.type === 'invalid') throw new ApiError('UNAUTHORIZED');
  if (principal.type === 'operator')
    throw new ApiError('FORBIDDEN', 'the operator token can only create accounts');
  if (principal.type === 'api_key') {
    if (!need.keyMay) throw new ApiError('FORBIDDEN', 'project API keys cannot use this route');
    const project =
      prefetched?.ref === idOrSlug ? (prefetched.project ?? undefined) : await findProject(db, idOrSlug);
    if (!project || project.id !== principal.projectId) throw new ApiError('NOT_FOUND', 'project not found');
    if (!need.keyMay(principal.capabilities))
      throw new ApiError('FORBIDDEN', 'this API key lacks the capability for this route');
    return { project, role: null, principal };
  }
  const row =
    prefetched?.ref === idOrSlug
      ? prefetched.project && prefetched.role
        ? { project: prefetched.project, role: prefetched.role }
        : undefined
      : (
          await db
            .select({ project: projects, role: projectMembers.role })
            .from(projects)
            .innerJoin(
              projectMembers,
              and(
                eq(projectMembers.projectId, projects.id),
                eq(projectMembers.accountId, principal.accountId),
              ),
            )
            .where(projectRefCondition(idOrSlug))
            .limit(1)
        )[0];
  if (!row) throw new ApiError('NOT_FOUND', 'project not found');
  if (!roleAtLeast(row.role, need.role)) {
    throw new ApiError('FORBIDDEN', `this needs the ${need.role} role on the project; you have ${row.role}`);
  }
  return { project: row.project, role: row.role, principal };
}
