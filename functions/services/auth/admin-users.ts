/** The auth-app users admin: list, disable or enable, delete. */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { authUsers } from '../../../db/schema';
import { notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { type AuthUserRow, revokeUserSessions, toUserBody, type UserBody } from './users';

/** A user as the admin routes show it: the user object plus `disabled`. */
export type AdminUserBody = UserBody & { disabled: boolean };

/** The admin view of a user row. */
export const toAdminUser = (row: AuthUserRow): AdminUserBody => ({
  ...toUserBody(row),
  disabled: row.disabled,
});

/** A page of the app's users, oldest first. */
export async function listUsers(
  db: Db,
  appId: string,
  page: { limit: number; offset: number },
): Promise<AdminUserBody[]> {
  const rows = await db
    .select()
    .from(authUsers)
    .where(eq(authUsers.authAppId, appId))
    .orderBy(authUsers.createdAt, authUsers.id)
    .limit(page.limit)
    .offset(page.offset);
  return rows.map(toAdminUser);
}

const byId = (appId: string, userId: string) =>
  and(eq(authUsers.authAppId, appId), eq(authUsers.id, userId.toLowerCase()));

/** Disables or enables a user; disabling also ends every session the user holds. */
export async function setUserDisabled(
  db: Db,
  appId: string,
  userId: string,
  disabled: boolean,
): Promise<AdminUserBody> {
  if (!isUuid(userId)) throw notFound('user');
  return db.transaction(async (tx) => {
    const [row] = await tx.update(authUsers).set({ disabled }).where(byId(appId, userId)).returning();
    if (!row) throw notFound('user');
    if (disabled) await revokeUserSessions(tx, row.id);
    return toAdminUser(row);
  });
}

/** Deletes a user with its identities and sessions (cascade). */
export async function deleteUser(db: Db, appId: string, userId: string): Promise<void> {
  if (!isUuid(userId)) throw notFound('user');
  const [row] = await db.delete(authUsers).where(byId(appId, userId)).returning({ id: authUsers.id });
  if (!row) throw notFound('user');
}
