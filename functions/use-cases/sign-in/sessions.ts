/**
 * Sessions of end users: a short-lived access JWT signed with the app's own key (see
 * signing-keys.ts) and an opaque refresh token stored as a hash, rotated on use, whose reuse
 * revokes its family (refresh-tokens.ts).
 */
import { eq, sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { rowsOf } from '../../../db/client';
import { authApps, authRefreshTokens, type StoredSigningKey } from '../../../db/schema';
import type { Config } from '../../config';
import { sha256Hex } from '../../lib/crypto';
import { newId, newSecret } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import { issuerOf } from './auth-urls';
import { currentSigningKey, ensureSigningKeys, publicJwks, signerOf } from './signing-keys';
import { type AuthUserRow, type ProviderIdentity, toUserBody, type UserBody } from './users';

/** Access tokens live 15 minutes. */
export const ACCESS_TOKEN_TTL_SECONDS = 900;
/** Refresh tokens live 30 days unless rotated first. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

/** The session body the exchange, the ID-token sign-in and the refresh answer (docs/auth-service.md). */
export interface SessionBody {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
  user: UserBody;
}

/** The message of the invalid_grant error an unusable one-time code gets (the exchange's every refusal). */
export const INVALID_CODE = 'invalid or expired code';

/** What signs an app's tokens: the app's id, slug and keys. */
export type SigningApp = { id: string; appId: string; signingKeys: StoredSigningKey[] };

async function accessToken(
  config: Config,
  slug: string,
  signingKey: StoredSigningKey,
  user: UserBody,
): Promise<string> {
  const { key, kid, alg } = await signerOf(config, signingKey);
  return new SignJWT({ email: user.email, email_verified: user.email_verified })
    .setProtectedHeader({ alg, kid, typ: 'JWT' })
    .setIssuer(issuerOf(config, slug))
    .setAudience(slug)
    .setSubject(user.id)
    .setJti(newId())
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
    .sign(key);
}

/** The session body of `user`: its refresh token and an access token signed with `signingKey`. */
export async function sessionBody(
  config: Config,
  slug: string,
  signingKey: StoredSigningKey,
  user: UserBody,
  refresh: string,
): Promise<SessionBody> {
  return {
    access_token: await accessToken(config, slug, signingKey, user),
    refresh_token: refresh,
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    token_type: 'Bearer',
    user,
  };
}

/** A new refresh token with its hash and expiry. */
export async function newRefresh() {
  const token = newSecret('refresh');
  return {
    token,
    hash: await sha256Hex(token),
    expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_MS).toISOString(),
  };
}

/** Opens a session for a user who just signed in (one INSERT). */
export async function issueSession(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  { app, user }: { app: SigningApp; user: AuthUserRow },
): Promise<SessionBody> {
  const db = ctx.http;
  const config = ctx.config;
  const signingKey = await currentSigningKey(db, config, app);
  const refresh = await newRefresh();
  await db.insert(authRefreshTokens).values({
    id: newId(),
    authAppId: user.authAppId,
    userId: user.id,
    familyId: newId(),
    tokenHash: refresh.hash,
    expiresAt: new Date(refresh.expiresAt),
  });
  return sessionBody(config, app.appId, signingKey, toUserBody(user), refresh.token);
}

/** The session body of a session just opened: its refresh token and an access token signed with `signingKey`. */
export function openedSessionBody(
  config: Config,
  slug: string,
  signingKey: StoredSigningKey,
  opened: OpenedSession,
): Promise<SessionBody> {
  return sessionBody(config, slug, signingKey, opened.user, opened.refreshToken);
}

/** Reads a user row selected by raw SQL (snake_case columns). */
export function userFromRow(row: Record<string, unknown>): UserBody {
  const created = row.created_at;
  return {
    id: String(row.id),
    email: String(row.email),
    email_verified: row.email_verified === true,
    name: typeof row.name === 'string' ? row.name : null,
    avatar_url: typeof row.avatar_url === 'string' ? row.avatar_url : null,
    created_at: (created instanceof Date ? created : new Date(String(created))).toISOString(),
    providers: Array.isArray(row.providers) ? row.providers.map(String) : [],
  };
}

/** A session just opened for a user: the user object and the refresh token (not yet encrypted). */
export interface OpenedSession {
  user: UserBody;
  refreshToken: string;
}

/** Whose session {@link openSession} opens: a user by id, or the user an app's provider identity signs in as. */
export type SessionOf = (
  | { userId: string }
  | { appId: string; who: Pick<ProviderIdentity, 'provider' | 'subject'> }
) & { grant?: SessionGrant };

/** What a session opened at the standard authorize endpoint was granted, kept on its refresh tokens. */
export interface SessionGrant {
  scope: string;
  /** Unix seconds of the sign-in. */
  authTime: number;
}

const authTimeOf = (grant: SessionGrant | undefined): string | null =>
  grant ? new Date(grant.authTime * 1000).toISOString() : null;

/**
 * Opens a session for a user who signed in, in one statement, when its refresh token goes into
 * a one-time code (so the exchange needs no Postgres) or straight to the browser: the user
 * `of` names (a returning user found by their identity: their sign-in and session in one trip)
 * and a refresh token written only while the user is not disabled, holding the user row (FOR
 * SHARE) against a concurrent disable, whose revocation then covers it. `disabled` for a
 * disabled user; undefined when there is no such user (an identity the app does not know yet).
 */
export async function openSession(
  ctx: Pick<RequestContext, 'http'>,
  of: SessionOf,
): Promise<OpenedSession | 'disabled' | undefined> {
  const db = ctx.http;
  const users =
    'userId' in of
      ? sql`SELECT u.* FROM auth_users u WHERE u.id = ${of.userId}::uuid`
      : sql`SELECT u.* FROM auth_identities i JOIN auth_users u ON u.id = i.user_id
             WHERE i.auth_app_id = ${of.appId}::uuid AND i.provider = ${of.who.provider} AND i.subject = ${of.who.subject}`;
  const refresh = await newRefresh();
  const [row] = await rowsOf<Record<string, unknown>>(
    db,
    sql`
    WITH u AS (${users} FOR SHARE OF u),
    session AS (
      INSERT INTO auth_refresh_tokens (id, auth_app_id, user_id, family_id, token_hash, expires_at, scope, auth_time)
      SELECT ${newId()}::uuid, u.auth_app_id, u.id, ${newId()}::uuid, ${refresh.hash}, ${refresh.expiresAt}::timestamptz,
             ${of.grant?.scope ?? null}, ${authTimeOf(of.grant)}::timestamptz
      FROM u WHERE NOT u.disabled
      RETURNING id
    )
    SELECT u.*, EXISTS (SELECT 1 FROM session) AS opened FROM u`,
  );
  if (!row) return undefined;
  return row.opened === true ? { user: userFromRow(row), refreshToken: refresh.token } : 'disabled';
}

/**
 * The session body for a redeemed one-time code: its refresh token and a fresh access token
 * signed with the app key the code's record carries (so the exchange needs no Postgres).
 */
export async function sessionFromCode(
  config: Config,
  slug: string,
  record: { user: UserBody; refreshCiphertext: string; signingKey?: StoredSigningKey },
): Promise<SessionBody> {
  // A code issued before records carried the app's key (at most 120 s old at a deploy).
  if (!record.signingKey) throw new OAuthError(400, INVALID_CODE, 'invalid_grant');
  const refresh = await config.keyring.decrypt(record.refreshCiphertext);
  return sessionBody(config, slug, record.signingKey, record.user, refresh);
}

/** The public keys of the app's JWKS (its own keys only), or undefined when there is no such app. */
export async function appPublicKeys(
  { http: db, config }: Pick<RequestContext, 'http' | 'config'>,
  slug: string,
): Promise<Record<string, unknown>[] | undefined> {
  const [row] = await db
    .select({ id: authApps.id, signingKeys: authApps.signingKeys })
    .from(authApps)
    .where(eq(authApps.appId, slug))
    .limit(1);
  if (!row) return undefined;
  return publicJwks(await ensureSigningKeys(db, config, row));
}
