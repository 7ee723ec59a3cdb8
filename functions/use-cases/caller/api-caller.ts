/** Who is calling: resolved once per request from the Bearer token or the console's cookie. */
import { and, eq, gt, isNull, or, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { type BatchQuery, type HttpDb, type Queryable, runBatch } from '../../../db/client';
import { type ApiKeyCapabilities, accountTokens, apiKeys, projects } from '../../../db/schema';
import type { Config } from '../../config';
import { SLUG_RE } from '../../domain/names';
import type { Role } from '../../domain/roles';
import { sha256Hex, timingSafeEqual } from '../../lib/crypto';
import { isUuid, TOKEN_PREFIX } from '../../lib/ids';
import type { Principal } from './principal-type';

export type { Principal } from './principal-type';
/** A query sent with the caller's lookup (see {@link resolveCallerWith}). */
export type { BatchQuery };

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

/** A project as the caller statement returns it: id, slug, name, created_at. */
type ProjectTuple = [string, string, string, string];

/** The `projects` join of how a request names its project (`ref`, lower-cased). */
function projectJoin(kind: ProjectRefKind, ref: string): SQL {
  if (kind === 'id') return sql`p.id = ${ref}::uuid`;
  if (kind === 'slug') return sql`p.slug = ${ref}`;
  return sql`false`;
}

const PROJECT_COLUMNS = sql.raw(
  'case when p.id is null then null else json_build_array(p.id, p.slug, p.name, p.created_at) end as project',
);

/**
 * The account caller's lookup. It also records the token's `last_used_at`, at most once an hour,
 * in the same statement (a data-modifying CTE), so tracking use costs no round trip; the hour
 * keeps the row lock off the path of nearly every request.
 */
const accountCaller = (hash: string, join: SQL) => sql`
  with t as (
    select id, account_id, kind, read_only, last_used_at from account_tokens
     where token_hash = ${hash} and revoked_at is null and (expires_at is null or expires_at > now())
     limit 1),
  used as (
    update account_tokens set last_used_at = now()
     where id = (select id from t where last_used_at is null or last_used_at < now() - interval '1 hour')
     returning 1)
  select t.id, t.account_id, t.kind, t.read_only, ${PROJECT_COLUMNS}, m.role
    from t
    left join projects p on ${join}
    left join project_members m on m.project_id = p.id and m.account_id = t.account_id`;

const keyCaller = (hash: string, join: SQL) => sql`
  select k.id, k.project_id, k.capabilities, k.site_id, ${PROJECT_COLUMNS}
    from api_keys k
    left join projects p on ${join}
   where k.key_hash = ${hash} and k.revoked_at is null
   limit 1`;

/**
 * An auth app's SERVICE_AUTH_SERVER_KEY, as a key with no capability: it introspects tokens and
 * nothing else (contract §9, The server key), so every management route answers it 403; its end
 * users are administered by a site at `admin` (its managed key) or a project role. Found by the
 * key's hash, so a rotated key finds nothing from the moment the rotation committed.
 */
const serverKeyCaller = (hash: string, join: SQL) => sql`
  select a.id, a.project_id, json_build_object() as capabilities,
         null::uuid as site_id, ${PROJECT_COLUMNS}
    from auth_apps a
    left join projects p on ${join}
   where a.server_key_hash = ${hash}
   limit 1`;

/**
 * SQL for the id of the project `ref` names, for a read sent with the caller's lookup: a uuid
 * as itself, a slug through `projects`; a reference that can be neither names none (null).
 */
export function projectIdOf(ref: string): SQL {
  const kind = refKind(ref);
  if (kind === 'id') return sql`${ref.toLowerCase()}::uuid`;
  if (kind === 'slug') return sql`(select id from projects where slug = ${ref.toLowerCase()})`;
  return sql`null::uuid`;
}

/** Rows as `db.execute` returns them. */
type Rows = { rows: Array<Record<string, unknown>> };

/**
 * The caller lookup as a query to send with a route's own reads (one round trip for both),
 * and how to read its answer. Credentials that need no lookup (none, the operator token, an
 * unknown kind) are resolved at once.
 */
export type CallerRead =
  | { resolved: Resolved }
  | {
      query: SQL;
      decode(answer: unknown): Resolved;
      /** SQL for the calling account's id (null for a key), for reads sent with the lookup. */
      accountId: SQL;
    };

/** Builds the {@link CallerRead} of `token`, with the membership of `projectRef` when given. */
export async function callerRead(
  config: Config,
  token: string | undefined,
  projectRef?: string,
): Promise<CallerRead> {
  // The operator token is honoured as given (contract §9), whatever it starts with.
  if (token && timingSafeEqual(token, config.OPERATOR_TOKEN))
    return { resolved: { principal: { type: 'operator' } } };
  const callerKind =
    token?.startsWith(TOKEN_PREFIX.account) || token?.startsWith(TOKEN_PREFIX.session)
      ? 'account'
      : token?.startsWith(TOKEN_PREFIX.apiKey) || token?.startsWith(TOKEN_PREFIX.serverKey)
        ? 'api_key'
        : undefined;
  if (!token || !callerKind)
    return { resolved: { principal: await resolvePrincipal(() => never(), config, token) } };
  const hash = await sha256Hex(token);
  const join = projectJoin(refKind(projectRef), projectRef?.toLowerCase() ?? '');
  return {
    query:
      callerKind === 'account'
        ? accountCaller(hash, join)
        : token.startsWith(TOKEN_PREFIX.serverKey)
          ? serverKeyCaller(hash, join)
          : keyCaller(hash, join),
    accountId:
      callerKind === 'account'
        ? sql`(select t.account_id from account_tokens t where t.token_hash = ${hash} and t.revoked_at is null and (t.expires_at is null or t.expires_at > now()))`
        : sql`null::uuid`,
    decode(answer) {
      const row = (answer as Rows).rows[0];
      if (!row) return { principal: { type: 'invalid' } };
      const tuple = row.project as ProjectTuple | null;
      const project = tuple
        ? { id: tuple[0], slug: tuple[1], name: tuple[2], createdAt: new Date(tuple[3]) }
        : null;
      const principal: Principal =
        callerKind === 'account'
          ? {
              type: 'account',
              accountId: row.account_id as string,
              tokenId: row.id as string,
              via: row.kind === 'session' ? 'session' : 'token',
              readOnly: row.read_only === true,
            }
          : {
              type: 'api_key',
              keyId: row.id as string,
              projectId: row.project_id as string,
              capabilities: row.capabilities as ApiKeyCapabilities,
              siteId: (row.site_id as string | null) ?? null,
            };
      if (projectRef === undefined) return { principal };
      const role = callerKind === 'account' ? ((row.role as Role | null) ?? null) : null;
      return { principal, membership: { ref: projectRef, project, role } };
    },
  };
}

/**
 * Resolves the caller of a request: one statement, with the membership of `projectRef` when
 * the request names a project, so a project route needs no second round trip for its check.
 */
export async function resolveCaller(
  db: HttpDb,
  config: Config,
  token: string | undefined,
  projectRef?: string,
): Promise<Resolved> {
  const read = await callerRead(config, token, projectRef);
  if ('resolved' in read) return read.resolved;
  return read.decode(await db.execute(read.query));
}

/**
 * Runs a pending caller lookup (when there is one) and `queries` in one round trip; returns
 * the caller and what each query returned. The answers are the caller's to see only once it
 * is admitted.
 */
export async function resolveCallerWith(
  db: HttpDb,
  read: Extract<CallerRead, { query: SQL }> | undefined,
  queries: readonly BatchQuery[],
): Promise<{ caller?: Resolved; answers: unknown[] }> {
  if (!read) return { answers: await runBatch(db, queries) };
  const [callerAnswer, ...answers] = await runBatch(db, [db.execute(read.query), ...queries]);
  return { caller: read.decode(callerAnswer), answers };
}

/** For credentials that are settled without a database. */
function never(): Queryable {
  throw new Error('this credential needs no lookup');
}

/** Resolves a presented credential; unknown, revoked or expired ones are `invalid`. */
export async function resolvePrincipal(
  db: () => Queryable,
  config: Config,
  token: string | undefined,
): Promise<Principal> {
  if (!token) return { type: 'anonymous' };
  // Any OPERATOR_TOKEN of 32 or more characters is honoured as given (contract §9).
  if (timingSafeEqual(token, config.OPERATOR_TOKEN)) return { type: 'operator' };
  if (token.startsWith(TOKEN_PREFIX.operator)) return { type: 'invalid' };
  if (token.startsWith(TOKEN_PREFIX.account) || token.startsWith(TOKEN_PREFIX.session)) {
    // Lookup by hash: the secret itself is never compared byte by byte.
    const hash = await sha256Hex(token);
    const [row] = await db()
      .select({
        id: accountTokens.id,
        accountId: accountTokens.accountId,
        kind: accountTokens.kind,
        readOnly: accountTokens.readOnly,
      })
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
      readOnly: row.readOnly,
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
