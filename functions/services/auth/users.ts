/**
 * End users of an auth app: finding the user a provider identity signs in as, linking it to an
 * existing user by verified e-mail, or creating one within the app's user limit.
 */
import { and, count, eq, isNull } from 'drizzle-orm';
import type { Db, Queryable, Tx } from '../../../db/client';
import { authApps, authIdentities, authRefreshTokens, authUsers } from '../../../db/schema';
import { newId } from '../../lib/ids';
import type { Provider } from './apps';

/** An auth user row. */
export type AuthUserRow = typeof authUsers.$inferSelect;

/** The user object of session bodies and the admin routes. */
export interface UserBody {
  id: string;
  email: string;
  email_verified: boolean;
  name: string | null;
  avatar_url: string | null;
  created_at: string;
  providers: string[];
}

/** What a provider says about the person signing in. */
export interface ProviderIdentity {
  provider: Provider;
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  avatarUrl: string | null;
}

/** Why a sign-in is refused after the provider vouched for the person. */
export type SignInRefusal = 'disabled' | 'user_limit' | 'unverified_email';

/** People-readable text of each refusal (sent as `error` in JSON or in the redirect). */
export const REFUSAL_MESSAGE: Record<SignInRefusal, string> = {
  disabled: 'Account is disabled',
  user_limit: "This app's user limit has been reached",
  unverified_email: 'The provider has not verified this e-mail address, and an account already uses it',
};

/** The user object of a row. */
export function toUserBody(
  row: Pick<AuthUserRow, 'id' | 'email' | 'emailVerified' | 'name' | 'avatarUrl' | 'createdAt' | 'providers'>,
): UserBody {
  return {
    id: row.id,
    email: row.email,
    email_verified: row.emailVerified,
    name: row.name,
    avatar_url: row.avatarUrl,
    created_at: row.createdAt.toISOString(),
    providers: row.providers,
  };
}

async function byIdentity(
  db: Queryable | Tx,
  appId: string,
  who: ProviderIdentity,
): Promise<AuthUserRow | undefined> {
  const [row] = await db
    .select({ user: authUsers })
    .from(authIdentities)
    .innerJoin(authUsers, eq(authUsers.id, authIdentities.userId))
    .where(
      and(
        eq(authIdentities.authAppId, appId),
        eq(authIdentities.provider, who.provider),
        eq(authIdentities.subject, who.subject),
      ),
    )
    .limit(1);
  return row?.user;
}

async function linkOrCreate(
  tx: Tx,
  appId: string,
  who: ProviderIdentity,
): Promise<{ ok: true; user: AuthUserRow } | { ok: false; refusal: SignInRefusal }> {
  // One sign-up at a time per app: the user limit and the e-mail link stay exact under races.
  const [app] = await tx
    .select({ userLimit: authApps.userLimit })
    .from(authApps)
    .where(eq(authApps.id, appId))
    .for('update');
  const known = await byIdentity(tx, appId, who);
  if (known) return known.disabled ? { ok: false, refusal: 'disabled' } : { ok: true, user: known };
  const [existing] = await tx
    .select()
    .from(authUsers)
    .where(and(eq(authUsers.authAppId, appId), eq(authUsers.email, who.email)))
    .limit(1);
  if (existing) {
    // An unverified address proves nothing about who owns the existing account.
    if (!who.emailVerified) return { ok: false, refusal: 'unverified_email' };
    if (existing.disabled) return { ok: false, refusal: 'disabled' };
    await tx
      .insert(authIdentities)
      .values({ authAppId: appId, provider: who.provider, subject: who.subject, userId: existing.id });
    const providers = existing.providers.includes(who.provider)
      ? existing.providers
      : [...existing.providers, who.provider];
    const [user] = await tx
      .update(authUsers)
      .set({
        providers,
        emailVerified: true,
        name: existing.name ?? who.name,
        avatarUrl: existing.avatarUrl ?? who.avatarUrl,
      })
      .where(eq(authUsers.id, existing.id))
      .returning();
    return { ok: true, user: user as AuthUserRow };
  }
  if (app?.userLimit !== null && app?.userLimit !== undefined) {
    const [row] = await tx.select({ n: count() }).from(authUsers).where(eq(authUsers.authAppId, appId));
    if ((row?.n ?? 0) >= app.userLimit) return { ok: false, refusal: 'user_limit' };
  }
  const [user] = await tx
    .insert(authUsers)
    .values({
      id: newId(),
      authAppId: appId,
      email: who.email,
      emailVerified: who.emailVerified,
      name: who.name,
      avatarUrl: who.avatarUrl,
      providers: [who.provider],
    })
    .returning();
  const created = user as AuthUserRow;
  await tx
    .insert(authIdentities)
    .values({ authAppId: appId, provider: who.provider, subject: who.subject, userId: created.id });
  return { ok: true, user: created };
}

/**
 * The user `who` signs in as. A returning identity costs one query (on `reads`, which may be the
 * HTTP handle); a new one is linked to the user with the same e-mail only when the provider
 * verified it, else a user is created within the app's limit, in a transaction on `db`.
 */
export async function signInIdentity(
  db: Db,
  appId: string,
  who: ProviderIdentity,
  reads: Queryable = db,
): Promise<{ ok: true; user: AuthUserRow } | { ok: false; refusal: SignInRefusal }> {
  const known = await byIdentity(reads, appId, who);
  if (known) return known.disabled ? { ok: false, refusal: 'disabled' } : { ok: true, user: known };
  return db.transaction((tx) => linkOrCreate(tx, appId, who));
}

/** Marks every refresh token of a user revoked (on disable). */
export async function revokeUserSessions(db: Db | Tx, userId: string): Promise<void> {
  await db
    .update(authRefreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(authRefreshTokens.userId, userId), isNull(authRefreshTokens.revokedAt)));
}
