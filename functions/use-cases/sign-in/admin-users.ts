/**
 * The auth-app users admin: list, disable or enable, delete. Outstanding one-time codes are
 * redeemed without Postgres, so every change here is also written to the app's code store,
 * where it blocks (or unblocks) the user's codes.
 */
import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { HttpDb, Queryable } from '../../../db/client';
import { authRefreshTokens, authUsers } from '../../../db/schema';
import { ApiError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { type ActivitySource, activityQuery } from '../activity';
import type { AuthAppRow } from './apps';
import { blockCodes, unblockCodes, unblockNewCodes } from './code-regions';
import { CODE_TTL_MS, STATE_TTL_MS } from './one-time-codes';
import { type AuthUserRow, revokeUserSessions, toUserBody, type UserBody } from './users';

/** A user as the admin routes show it: the user object plus `disabled`. */
export type AdminUserBody = UserBody & { disabled: boolean };

/** The admin view of a user row. */
export const toAdminUser = (row: AuthUserRow): AdminUserBody => ({
  ...toUserBody(row),
  disabled: row.disabled,
});

/**
 * How long a deleted user's codes stay blocked: past the life of any code, and of any sign-in
 * that was already past its Postgres step when the user was deleted.
 */
const DELETED_BLOCK_MS = CODE_TTL_MS + STATE_TTL_MS;

const storeUnavailable = () =>
  new ApiError(
    'SERVICE_UNAVAILABLE',
    'the change is saved but sign-ins in progress could not be updated yet; repeat the request',
  );

/** A user in the app's users listing: the admin view plus when they last signed in. */
export type ListedUserBody = AdminUserBody & { last_sign_in_at: string | null };

/** The listing view of a {@link listUsers} row. */
export const toListedUser = (row: AuthUserRow & { lastSignInAt: Date | null }): ListedUserBody => ({
  ...toAdminUser(row),
  last_sign_in_at: row.lastSignInAt ? row.lastSignInAt.toISOString() : null,
});

/**
 * When the listed user last signed in: the newest start of one of their sessions. A session is
 * a refresh-token family (rotation keeps the family), so a refresh is not a sign-in; its start
 * is the family's first token. Read per row through the user_id index, in the listing's query.
 * The outer column is named in full: drizzle leaves a single table's columns unqualified here.
 */
const lastSignInAt = sql<Date | null>`(
  SELECT max(f.started) FROM (
    SELECT min(t.created_at) AS started FROM ${authRefreshTokens} t
    WHERE t.user_id = "auth_users"."id" GROUP BY t.family_id
  ) f
)`.mapWith(authRefreshTokens.createdAt);

/** A page of the app's users, oldest first, each with when they last signed in. */
export function listUsers(db: Queryable, appId: string | SQL, page: { limit: number; offset: number }) {
  return db
    .select({ ...getTableColumns(authUsers), lastSignInAt })
    .from(authUsers)
    .where(eq(authUsers.authAppId, appId))
    .orderBy(authUsers.createdAt, authUsers.id)
    .limit(page.limit)
    .offset(page.offset);
}

const byId = (appId: string | SQL, userId: string) =>
  isUuid(userId) ? and(eq(authUsers.authAppId, appId), eq(authUsers.id, userId.toLowerCase())) : sql`false`;

/** The statement recording `action` on user `userId` of `app`, when the user exists at that point of the batch. */
function userEvent(
  db: HttpDb,
  by: ActivitySource,
  app: AuthAppRow,
  userId: string,
  action: string,
  details = {},
) {
  const where = byId(app.id, userId);
  const event = {
    action,
    target: {
      type: 'auth_user',
      id: userId.toLowerCase(),
      name: sql`select email from auth_users where ${where}`,
    },
    projectId: app.projectId,
    details: { auth_app: app.appId, ...details },
  };
  return activityQuery(db, by, event, sql`exists (select 1 from auth_users where ${where})`);
}

/**
 * Whether user `userId` of the auth app `appId` gives exists: a query to send with the
 * caller's lookup (at most one row); read it with {@link userFound}.
 */
export function userQuery(db: Queryable, appId: SQL, userId: string) {
  return db.select({ id: authUsers.id }).from(authUsers).where(byId(appId, userId)).limit(1);
}

/** The id of the user {@link userQuery} found, or 404. */
export function userFound(rows: Array<{ id: string }>): string {
  const [row] = rows;
  if (!row) throw new ApiError('NOT_FOUND', 'user not found');
  return row.id;
}

/** SQL selecting the id of user `userId` of app `appId` (none for a user the app does not have). */
const userIdsOf = (appId: string, userId: string): SQL =>
  sql`select ${authUsers.id} from ${authUsers} where ${byId(appId, userId)}`;

/**
 * Disables or enables a user in one metadata round trip: the user's row and, when disabling,
 * every session the user holds, in one batch (404, nothing changed, for a user the app does
 * not have). Disabling then blocks their outstanding codes; enabling lets new codes through
 * (those issued before the disable stay refused). Both steps are idempotent, so repeating the
 * request completes one that failed half-way.
 */
export async function setUserDisabled(
  ctx: RequestContext,
  { app, userId, disabled }: { app: AuthAppRow; userId: string; disabled: boolean },
): Promise<AdminUserBody> {
  const db = ctx.http;
  const update = db.update(authUsers).set({ disabled }).where(byId(app.id, userId)).returning();
  const recorded = userEvent(
    db,
    ctx.activity,
    app,
    userId,
    disabled ? 'auth_user.disable' : 'auth_user.enable',
  );
  const [[row]] = disabled
    ? await db.batch([update, revokeUserSessions(db, userIdsOf(app.id, userId)), recorded])
    : await db.batch([update, recorded]);
  if (!row) throw new ApiError('NOT_FOUND', 'user not found');
  const user = toAdminUser(row);
  const store = disabled
    ? blockCodes(ctx, { slug: app.appId, userId: user.id, reason: 'disabled' })
    : unblockNewCodes(ctx, { slug: app.appId, userId: user.id });
  await store.catch(() => {
    throw storeUnavailable();
  });
  return user;
}

/**
 * Deletes user `userId` (found by {@link userQuery}) with their identities and sessions
 * (cascade). Their codes are blocked first, and unblocked again if the delete fails, so a
 * failure leaves nothing behind; the delete is one statement (404 if the user went meanwhile).
 */
export async function deleteUser(
  ctx: RequestContext,
  { app, userId }: { app: AuthAppRow; userId: string },
): Promise<void> {
  const db = ctx.http;
  const blocked = { slug: app.appId, userId, reason: 'deleted', ttlMs: DELETED_BLOCK_MS } as const;
  await blockCodes(ctx, blocked).catch(() => {
    throw new ApiError('SERVICE_UNAVAILABLE', 'the sign-in store could not be reached; nothing was deleted');
  });
  try {
    const [, [row]] = await db.batch([
      userEvent(db, ctx.activity, app, userId, 'auth_user.delete'),
      db.delete(authUsers).where(byId(app.id, userId)).returning({ id: authUsers.id }),
    ]);
    if (!row) throw new ApiError('NOT_FOUND', 'user not found');
  } catch (err) {
    await unblockCodes(ctx, { slug: app.appId, userId }).catch(() => undefined);
    throw err;
  }
}
