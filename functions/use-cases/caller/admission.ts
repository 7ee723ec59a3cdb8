/**
 * Whether a resolved caller may go on to a route, by what the route declares it needs (its
 * role on the path's project, or an account of its own; whether project API keys may call it;
 * whether it changes anything), never by its URL. The order is the one the API promises: 401
 * (no or bad credentials), 403 (a caller the route never accepts: the operator, a key, a
 * read-only token on a change), 404 (the project), 403 (the role or the key's capability).
 */
import type { Queryable } from '../../../db/client';
import type { Role } from '../../domain/roles';
import { ApiError } from '../../lib/errors';
import type { RequestContext } from '../../request-context';
import { type Membership, type Principal, resolveCaller } from './api-caller';
import { type ApiKeyCapabilities, type Project, projectAccess, requireAccount } from './project-access';

/** What a route needs of its caller. */
export interface CallerNeed {
  /**
   * The role on the project `:id` names, `account` for a route of the caller's own account, or
   * `operator` for the one route of the operator token (creating accounts).
   */
  role: Role | 'account' | 'operator';
  /** When set, a project API key whose capabilities satisfy this may call the route too. */
  keys?: (capabilities: ApiKeyCapabilities) => boolean;
  /** The 403 a project API key gets when `keys` is not set (a plain refusal when absent). */
  keyRefusal?: string;
  /** Whether the route changes anything (a read-only token may not call it). */
  writes: boolean;
}

/** Who the admitted caller is: its project (for a project route) or its account. */
export type Admitted =
  | { project: Project; role: Role | null; principal: Principal }
  | { accountId: string; principal: Principal }
  | { operator: true; principal: Principal };

/** Throws the refusals of a caller the route never accepts, before any project is looked at. */
function refuseCaller(principal: Principal, need: CallerNeed): void {
  if (principal.type === 'anonymous' || principal.type === 'invalid') throw new ApiError('UNAUTHORIZED');
  if (principal.type === 'operator')
    throw new ApiError('FORBIDDEN', 'the operator token can only create accounts');
  if (principal.type === 'api_key' && !need.keys && need.keyRefusal)
    throw new ApiError('FORBIDDEN', need.keyRefusal);
  if (principal.type === 'account' && principal.readOnly && need.writes)
    throw new ApiError('FORBIDDEN', 'this token is read-only: it cannot change anything');
}

/**
 * Admits `principal` to a route needing `need` on the project `ref` names (`membership`, read
 * with the caller, spares the lookup) or throws the refusal it earns.
 */
export async function admitCaller(
  db: Queryable,
  principal: Principal,
  need: CallerNeed,
  ref: string,
  membership?: Membership,
): Promise<Admitted> {
  if (need.role === 'operator') {
    if (principal.type === 'anonymous' || principal.type === 'invalid') throw new ApiError('UNAUTHORIZED');
    if (principal.type !== 'operator')
      throw new ApiError('FORBIDDEN', 'only the operator token can create accounts');
    return { operator: true, principal };
  }
  refuseCaller(principal, need);
  if (need.role === 'account') return { accountId: requireAccount(principal), principal };
  return projectAccess(db, principal, ref, { role: need.role, keyMay: need.keys }, membership);
}

/**
 * Admits the caller presenting `token` to a request no route declares its caller for: any valid
 * credential, or 401 (so a path no route takes reveals nothing before its 404).
 */
export async function admitAnyCaller(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  token: string | undefined,
): Promise<Principal> {
  const { principal } = await resolveCaller(ctx.http, ctx.config, token);
  if (principal.type === 'anonymous' || principal.type === 'invalid') throw new ApiError('UNAUTHORIZED');
  return principal;
}
