/**
 * A session's refresh tokens after it opened (sessions.ts): rotated on use in one statement,
 * a reused one revoking its whole family, and the family revoked at logout.
 */
import { sql } from 'drizzle-orm';
import { type Queryable, rowsOf } from '../../../db/client';
import type { StoredSigningKey } from '../../../db/schema';
import { sha256Hex } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import { newRefresh, type SessionBody, type SessionGrant, sessionBody, userFromRow } from './sessions';
import { currentSigningKey } from './signing-keys';
import { REFUSAL_MESSAGE } from './users';

/**
 * Rotates a refresh token in one statement. A token that is unknown, expired, already used or
 * revoked answers invalid_grant; if it was once valid its whole family is revoked, since a used
 * token coming back means it leaked.
 */
export async function refreshSession(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  input: { slug: string; token: string },
): Promise<SessionBody> {
  return (await rotateRefreshToken(ctx, input)).session;
}

/** A rotated session: its body, what it was granted at the standard authorize endpoint (if there) and the key that signed it. */
export interface RotatedSession {
  session: SessionBody;
  grant: SessionGrant | null;
  signingKey: StoredSigningKey;
}

/** {@link refreshSession}, also answering the session's grant and signing key (the standard token endpoint's refresh). */
export async function rotateRefreshToken(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  { slug, token }: { slug: string; token: string },
): Promise<RotatedSession> {
  const db = ctx.http;
  const config = ctx.config;
  const hash = await sha256Hex(token);
  const next = await newRefresh();
  const [row] = await rowsOf<Record<string, unknown>>(
    db,
    sql`
    WITH used AS (
      UPDATE auth_refresh_tokens t SET used_at = now()
      FROM auth_apps a
      WHERE t.token_hash = ${hash} AND a.id = t.auth_app_id AND a.app_id = ${slug} AND a.enabled
        AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now()
      RETURNING t.user_id, t.family_id, t.auth_app_id, a.signing_keys, t.scope, t.auth_time
    ), u AS (
      SELECT users.id, users.email, users.email_verified, users.name, users.avatar_url, users.created_at,
             users.providers, users.disabled, used.family_id, used.auth_app_id, used.signing_keys,
             used.scope, used.auth_time
      FROM auth_users users JOIN used ON users.id = used.user_id
    ), ins AS (
      INSERT INTO auth_refresh_tokens (id, auth_app_id, user_id, family_id, token_hash, expires_at, scope, auth_time)
      SELECT ${newId()}::uuid, u.auth_app_id, u.id, u.family_id, ${next.hash}, ${next.expiresAt}::timestamptz,
             u.scope, u.auth_time
      FROM u WHERE NOT u.disabled
      RETURNING 1
    )
    SELECT u.*, (SELECT count(*) FROM ins)::int AS issued FROM u`,
  );
  if (!row) {
    await refuseRefresh(db, slug, hash);
    throw new OAuthError(400, 'invalid or expired refresh token', 'invalid_grant');
  }
  if (row.disabled === true || row.issued !== 1) throw new OAuthError(403, REFUSAL_MESSAGE.disabled);
  const signingKey = await currentSigningKey(db, config, {
    id: String(row.auth_app_id),
    signingKeys: (row.signing_keys as StoredSigningKey[] | null) ?? [],
  });
  const authTime = row.auth_time == null ? null : new Date(row.auth_time as string | Date).getTime();
  return {
    session: await sessionBody(config, slug, signingKey, userFromRow(row), next.token),
    grant:
      typeof row.scope === 'string' && authTime !== null
        ? { scope: row.scope, authTime: Math.floor(authTime / 1000) }
        : null,
    signingKey,
  };
}

/**
 * Why a refresh token could not be rotated. An unknown app is a 404 and a disabled one a 403,
 * leaving the token as it was (it works again once the app is enabled). For an enabled app the
 * token was unknown, expired, used or revoked: its family is revoked in the same statement.
 */
async function refuseRefresh(db: Queryable, slug: string, hash: string): Promise<void> {
  const [app] = await rowsOf<{ enabled: boolean }>(
    db,
    sql`
    WITH app AS (SELECT id, enabled FROM auth_apps WHERE app_id = ${slug}),
    revoked AS (
      UPDATE auth_refresh_tokens SET revoked_at = now()
      WHERE revoked_at IS NULL AND (SELECT enabled FROM app) AND family_id = (
        SELECT t.family_id FROM auth_refresh_tokens t
        WHERE t.token_hash = ${hash} AND t.auth_app_id = (SELECT id FROM app))
      RETURNING 1
    )
    SELECT app.enabled, (SELECT count(*) FROM revoked) AS revoked FROM app`,
  );
  if (!app) throw new OAuthError(404, 'unknown app');
  if (!app.enabled) throw new OAuthError(403, 'this app is disabled');
}

/** Revokes the family of the refresh token with this hash (if it is one of this app's). */
async function revokeFamilyOf(db: Queryable, slug: string, hash: string): Promise<void> {
  await db.execute(sql`
    UPDATE auth_refresh_tokens SET revoked_at = now()
    WHERE revoked_at IS NULL AND family_id = (
      SELECT t.family_id FROM auth_refresh_tokens t JOIN auth_apps a ON a.id = t.auth_app_id
      WHERE t.token_hash = ${hash} AND a.app_id = ${slug}
    )`);
}

/** Ends the session a refresh token belongs to (its whole family). Unknown tokens are ignored. */
export async function logout(
  ctx: Pick<RequestContext, 'http'>,
  { slug, token }: { slug: string; token: string },
): Promise<void> {
  const db = ctx.http;
  await revokeFamilyOf(db, slug, await sha256Hex(token));
}
