/**
 * Whether a resolved caller may go on to the route it asked for, in the order the API promises:
 * 401 (no or bad credentials), 403 (a caller the route never accepts), 404 (the project), 403
 * (the role). The same rules whether the caller was read before the route or with its read.
 */
import { ApiError } from '../lib/errors';
import type { Resolved } from './caller/api-caller';
import { connectionCaller, requireRole } from './connections/site-access';

/** `/api/v1/projects/:id/...`: the project a request names, read with its caller. */
export const PROJECT_PATH = /^\/api\/v1\/projects\/([^/]+)/;
/** Project routes whose changes need the admin role: members and API keys. */
const ADMIN_PATH =
  /^\/api\/v1\/projects\/[^/]+\/(?:members|invitations|api-keys|(?:databases|buckets)\/[^/]+\/(?:credentials|principals))(?:\/|$)/;
/** The six connection routes of the specification. */
const CONNECTION_PATH = /^\/api\/v1\/projects\/[^/]+\/(?:connections|sites\/[^/]+\/connections(?:\/.*)?)$/;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The one change a read-only token may make: revoking itself (`tether logout`). */
const SELF_REVOKE = 'DELETE /api/v1/account/token';
/** A GET that opens a read-write database session: a write for a read-only token. */
const TUNNEL_PATH = /^\/api\/v1\/projects\/[^/]+\/sites\/[^/]+\/tunnel\//;

/** Throws the error a caller gets before its route runs, if any. */
export function admitCaller(caller: Resolved, method: string, path: string): void {
  const { type } = caller.principal;
  if (type === 'anonymous' || type === 'invalid') throw new ApiError('UNAUTHORIZED');
  // Callers no connection route accepts (project API keys) are refused before the body is read.
  if (CONNECTION_PATH.test(path)) connectionCaller(caller.principal);
  // A read-only personal token reads everything its account may and changes nothing.
  if (
    caller.principal.type === 'account' &&
    caller.principal.readOnly &&
    (!READ_METHODS.has(method) || TUNNEL_PATH.test(path)) &&
    `${method} ${path}` !== SELF_REVOKE
  )
    throw new ApiError('FORBIDDEN', 'this token is read-only: it cannot change anything');
  // An unknown project (or one the account is not a member of) is 404, and a member changing
  // what their role does not reach 403, before any body check.
  const { membership } = caller;
  if (type === 'account' && membership && (!membership.project || !membership.role))
    throw new ApiError('NOT_FOUND', 'project not found');
  if (membership?.role && method !== 'GET' && method !== 'HEAD') {
    requireRole(membership.role, ADMIN_PATH.test(path) ? 'admin' : 'write');
  }
}
