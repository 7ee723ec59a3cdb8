/** Who is calling: resolved once per request from the Bearer token or the console's cookie. */
import { and, eq, gt, isNull, or, type Placeholder, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { type ApiKeyCapabilities, accountTokens, apiKeys, projectMembers, projects } from '../../db/schema';
import { SLUG_RE } from '../domain/names';
import type { Role } from '../domain/roles';
import type { Config } from '../env';
import { sha256Hex, timingSafeEqual } from '../lib/crypto';
import { isUuid, TOKEN_PREFIX } from '../lib/ids';

/** The caller of a management route. */
export type Principal =
  | { type: 'anonymous' }
  | { type: 'invalid' }
  | { type: 'operator' }
  | { type: 'account'; accountId: string; tokenId: string; via: 'token' | 'session' }
  | {
      type: 'api_key';
      keyId: string;
      projectId: string;
      capabilities: ApiKeyCapabilities;
      siteId: string | null;
    };

/** The console keeps its dashboard session in this cookie. */
export const SESSION_COOKIE = 'tether_session';

/** An account's membership in the project a request names, read together with its token. */
export interface Membership {
  /** The project id or slug the request named. */
  ref: string;
  project: typeof projects.$inferSelect | null;
  role: Role | null;
}

/** The caller, and for an account naming a project its membership there. */
export interface Resolved {
  principal: Principal;
  membership?: Membership;
}

/** How a request names its project: not at all, by id or by slug (anything else names none). */
type ProjectRefKind = 'none' | 'id' | 'slug';

const refKind = (ref: string | undefined): ProjectRefKind =>
  ref === undefined ? 'none' : isUuid(ref) ? 'id' : SLUG_RE.test(ref) ? 'slug' : 'none';

const matchProject = (kind: ProjectRefKind, ref: string | Placeholder) =>
  kind === 'id' ? eq(projects.id, ref) : kind === 'slug' ? eq(projects.slug, ref) : sql`false`;

/** Matches the project a request names by id or slug; a reference that can be neither matches none. */
export const projectRefCondition = (ref: string) => matchProject(refKind(ref), ref.toLowerCase());

/** The caller lookup of one kind of project reference, built once (`$hash`, `$ref`). */
function prepareCallerQuery(db: Queryable, kind: ProjectRefKind) {
  return db
    .select({
      id: accountTokens.id,
      accountId: accountTokens.accountId,
      kind: accountTokens.kind,
      project: projects,
      role: projectMembers.role,
    })
    .from(accountTokens)
    .leftJoin(projects, matchProject(kind, sql.placeholder('ref')))
    .leftJoin(
      projectMembers,
      and(eq(projectMembers.projectId, projects.id), eq(projectMembers.accountId, accountTokens.accountId)),
    )
    .where(
      and(
        eq(accountTokens.tokenHash, sql.placeholder('hash')),
        isNull(accountTokens.revokedAt),
        or(isNull(accountTokens.expiresAt), gt(accountTokens.expiresAt, sql`now()`)),
      ),
    )
    .limit(1)
    .prepare(`caller_${kind}`);
}

/**
 * Built queries per database handle: the lookup runs on every management request, and building
 * it through drizzle cost more CPU than the rest of a small request.
 */
const callerQueries = new WeakMap<Queryable, Map<ProjectRefKind, ReturnType<typeof prepareCallerQuery>>>();

function callerQuery(db: Queryable, ref: string | undefined) {
  const kind = refKind(ref);
  let built = callerQueries.get(db);
  if (!built) {
    built = new Map();
    callerQueries.set(db, built);
  }
  let query = built.get(kind);
  if (!query) {
    query = prepareCallerQuery(db, kind);
    built.set(kind, query);
  }
  return query;
}

/**
 * Resolves a presented credential; unknown, revoked or expired ones are `invalid`. When the
 * request names a project (`projectRef`), an account's role there comes back from the same
 * query, so a project route needs no second round trip for its access check.
 */
export async function resolveCaller(
  db: () => Queryable,
  config: Config,
  token: string | undefined,
  projectRef?: string,
): Promise<Resolved> {
  if (!token?.startsWith(TOKEN_PREFIX.account) && !token?.startsWith(TOKEN_PREFIX.session)) {
    return { principal: await resolvePrincipal(db, config, token) };
  }
  const [row] = await callerQuery(db(), projectRef).execute({
    hash: await sha256Hex(token),
    ref: projectRef?.toLowerCase() ?? '',
  });
  if (!row) return { principal: { type: 'invalid' } };
  const principal: Principal = {
    type: 'account',
    accountId: row.accountId,
    tokenId: row.id,
    via: row.kind === 'session' ? 'session' : 'token',
  };
  if (!projectRef) return { principal };
  return { principal, membership: { ref: projectRef, project: row.project, role: row.role } };
}

/** Resolves a presented credential; unknown, revoked or expired ones are `invalid`. */
export async function resolvePrincipal(
  db: () => Queryable,
  config: Config,
  token: string | undefined,
): Promise<Principal> {
  if (!token) return { type: 'anonymous' };
  if (token.startsWith(TOKEN_PREFIX.operator)) {
    return timingSafeEqual(token, config.OPERATOR_TOKEN) ? { type: 'operator' } : { type: 'invalid' };
  }
  if (token.startsWith(TOKEN_PREFIX.account) || token.startsWith(TOKEN_PREFIX.session)) {
    // Lookup by hash: the secret itself is never compared byte by byte.
    const hash = await sha256Hex(token);
    const [row] = await db()
      .select({ id: accountTokens.id, accountId: accountTokens.accountId, kind: accountTokens.kind })
      .from(accountTokens)
      .where(
        and(
          eq(accountTokens.tokenHash, hash),
          isNull(accountTokens.revokedAt),
          or(isNull(accountTokens.expiresAt), gt(accountTokens.expiresAt, new Date())),
        ),
      )
      .limit(1);
    if (!row) return { type: 'invalid' };
    return {
      type: 'account',
      accountId: row.accountId,
      tokenId: row.id,
      via: row.kind === 'session' ? 'session' : 'token',
    };
  }
  if (token.startsWith(TOKEN_PREFIX.apiKey)) {
    const hash = await sha256Hex(token);
    const [row] = await db()
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
      .limit(1);
    if (!row) return { type: 'invalid' };
    return {
      type: 'api_key',
      keyId: row.id,
      projectId: row.projectId,
      capabilities: row.capabilities,
      siteId: row.siteId,
    };
  }
  return { type: 'invalid' };
}
