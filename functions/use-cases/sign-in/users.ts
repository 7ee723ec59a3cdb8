/**
 * End users of an auth app: finding the user a provider identity signs in as, linking it to an
 * existing user by verified e-mail, or creating one within the app's user limit.
 */
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../../db/client';
import type { AuthAppRow, AuthUserRow } from '../../../db/rows';
import { authApps, authIdentities, authRefreshTokens, authUsers } from '../../../db/schema';
import { newId } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import type { Provider } from './apps';

export type { AuthUserRow };

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

/** The user a provider identity signs in as, if it is known (a query to await or batch). */
function identityQuery(db: Queryable, appId: string, who: ProviderIdentity) {
  return db
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
}

/**
 * Links `who` to the verified user with the same e-mail (only when the provider verified it
 * too, and not to a disabled user), or creates a user within the app's limit; one statement,
 * answering the refusal or null. An identity whose e-mail is not verified is never linked and
 * never linked to: it gets a user of its own (refused while a verified user holds the address),
 * so nobody can pre-register a victim's address and share the account they make later. It must
 * run after the app row is locked, as its own statement, so it reads what earlier sign-ups of
 * the app committed (a statement keeps the snapshot it started with).
 */
function linkOrCreate(appId: string, who: ProviderIdentity): SQL {
  const provider = JSON.stringify([who.provider]);
  return sql`
    WITH known AS (
      SELECT u.disabled FROM auth_identities i JOIN auth_users u ON u.id = i.user_id
      WHERE i.auth_app_id = ${appId}::uuid AND i.provider = ${who.provider} AND i.subject = ${who.subject}
    ), existing AS (
      SELECT u.id, u.disabled FROM auth_users u
      WHERE u.auth_app_id = ${appId}::uuid AND u.email = ${who.email} AND u.email_verified
        AND NOT EXISTS (SELECT 1 FROM known)
    ), linkable AS (
      SELECT e.id FROM existing e WHERE ${who.emailVerified}::boolean AND NOT e.disabled
    ), linked_identity AS (
      INSERT INTO auth_identities (auth_app_id, provider, subject, user_id)
      SELECT ${appId}::uuid, ${who.provider}, ${who.subject}, l.id FROM linkable l
    ), linked AS (
      UPDATE auth_users u SET
        providers = CASE WHEN u.providers @> ${provider}::jsonb THEN u.providers
                         ELSE u.providers || ${provider}::jsonb END,
        name = coalesce(u.name, ${who.name}),
        avatar_url = coalesce(u.avatar_url, ${who.avatarUrl})
      FROM linkable l WHERE u.id = l.id
    ), room AS (
      SELECT a.user_limit IS NULL
          OR (SELECT count(*) FROM auth_users c WHERE c.auth_app_id = a.id) < a.user_limit AS ok
      FROM auth_apps a WHERE a.id = ${appId}::uuid
    ), created AS (
      INSERT INTO auth_users (id, auth_app_id, email, email_verified, name, avatar_url, providers)
      SELECT ${newId()}::uuid, ${appId}::uuid, ${who.email}, ${who.emailVerified}::boolean,
             ${who.name}, ${who.avatarUrl}, ${provider}::jsonb
      WHERE NOT EXISTS (SELECT 1 FROM known) AND NOT EXISTS (SELECT 1 FROM existing)
        AND coalesce((SELECT ok FROM room), false)
      RETURNING id
    ), created_identity AS (
      INSERT INTO auth_identities (auth_app_id, provider, subject, user_id)
      SELECT ${appId}::uuid, ${who.provider}, ${who.subject}, c.id FROM created c
    )
    SELECT CASE
      WHEN EXISTS (SELECT 1 FROM known) THEN CASE WHEN (SELECT disabled FROM known) THEN 'disabled' END
      WHEN EXISTS (SELECT 1 FROM existing) THEN CASE
        WHEN NOT ${who.emailVerified}::boolean THEN 'unverified_email'
        WHEN (SELECT disabled FROM existing) THEN 'disabled' END
      WHEN EXISTS (SELECT 1 FROM created) THEN NULL
      ELSE 'user_limit' END AS refusal`;
}

/**
 * An app by slug and the user a provider identity signs in as there, in one query: an ID-token
 * sign-in looks both up before the token is verified, with the subject the token claims, and
 * trusts the user only if the verified subject is the same.
 */
export async function loadAppAndIdentity(
  db: Queryable,
  slug: string,
  provider: Provider,
  claimedSubject: string,
): Promise<{ app: AuthAppRow | undefined; known: AuthUserRow | null }> {
  const [row] = await db
    .select({ app: authApps, user: authUsers })
    .from(authApps)
    .leftJoin(
      authIdentities,
      and(
        eq(authIdentities.authAppId, authApps.id),
        eq(authIdentities.provider, provider),
        eq(authIdentities.subject, claimedSubject),
      ),
    )
    .leftJoin(authUsers, eq(authUsers.id, authIdentities.userId))
    .where(eq(authApps.appId, slug))
    .limit(1);
  return { app: row?.app, known: row?.user ?? null };
}

/**
 * The user `who` signs in as. A returning identity costs one query (none when the caller
 * already looked it up: `lookedUp`); a new one is linked to the user with the same e-mail only
 * when the provider verified it, else a user is created within the app's limit. That is one HTTP batch, a transaction without a connection to open: the app's
 * row is locked first, so sign-ups of one app run one after another and the limit and the
 * e-mail link stay exact under races.
 */
export async function signInIdentity(
  ctx: Pick<RequestContext, 'http'>,
  {
    appId,
    who,
    lookedUp,
  }: { appId: string; who: ProviderIdentity; lookedUp?: { known: AuthUserRow | null } },
): Promise<{ ok: true; user: AuthUserRow } | { ok: false; refusal: SignInRefusal }> {
  const db = ctx.http;
  const known = lookedUp ? lookedUp.known : ((await identityQuery(db, appId, who))[0]?.user ?? null);
  if (known) return known.disabled ? { ok: false, refusal: 'disabled' } : { ok: true, user: known };
  const [, outcome, [after]] = await db.batch([
    db.select({ id: authApps.id }).from(authApps).where(eq(authApps.id, appId)).for('update'),
    db.execute<{ refusal: SignInRefusal | null }>(linkOrCreate(appId, who)),
    identityQuery(db, appId, who),
  ]);
  const refusal = outcome.rows[0]?.refusal ?? null;
  if (refusal) return { ok: false, refusal };
  if (!after) throw new Error('a sign-in was recorded but its user is missing');
  return { ok: true, user: after.user };
}

/**
 * Marks every live refresh token of the users `userIds` selects revoked (on disable): a query
 * to await or to send in a batch.
 */
export function revokeUserSessions(db: Queryable, userIds: SQL) {
  return db
    .update(authRefreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(sql`${authRefreshTokens.userId} in (${userIds})`, isNull(authRefreshTokens.revokedAt)));
}
