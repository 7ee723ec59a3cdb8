/**
 * Token introspection (RFC 7662) for an app's backend: the server key the app's connected sites
 * hold (SERVICE_AUTH_SERVER_KEY) asks whether an access token or a refresh token of that app is
 * active now, which a signature check alone cannot tell once the end user was disabled, the
 * session ended or the app turned off. One metadata read: the app, the key's match and the user
 * the token claims (or the refresh token's row and its user), together.
 */
import { sql } from 'drizzle-orm';
import { createLocalJWKSet, decodeJwt, type JWK, jwtVerify } from 'jose';
import { type Queryable, rowsOf } from '../../../db/client';
import type { StoredSigningKey } from '../../../db/schema';
import type { Config } from '../../config';
import { sha256Hex } from '../../lib/crypto';
import { isUuid, TOKEN_PREFIX } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import { issuerOf } from './auth-urls';
import { claimedJti } from './oauth-server/access-revocation';
import { publicJwks } from './signing-keys';

/** The answer for a token that is not active (RFC 7662 2.2: nothing else is said about it). */
export const INACTIVE = { active: false } as const;

/** An active access token's introspection answer. */
export interface ActiveToken {
  active: true;
  token_type: 'Bearer';
  client_id: string;
  sub: string;
  aud: string;
  iss: string;
  exp: number;
  iat: number;
  jti: string;
  email: string;
  email_verified: boolean;
}

/** An active refresh token's introspection answer: the session it keeps alive. */
export interface ActiveRefreshToken {
  active: true;
  token_type: 'refresh_token';
  client_id: string;
  sub: string;
  iss: string;
  exp: number;
  iat: number;
  email: string;
  email_verified: boolean;
}

/** The 401 for anything but the app's current server key (another app's, a rotated one, an unknown app). */
const wrongKey = () =>
  new OAuthError(401, "present this app's SERVICE_AUTH_SERVER_KEY as a Bearer token", 'invalid_client');

const seconds = (at: Date | string): number => Math.floor(new Date(at).getTime() / 1000);

/**
 * Whether `token`, one of Tether's opaque refresh tokens, is active for app `slug`: issued by
 * this app, neither used (rotated away) nor revoked (signed out, reuse detected, user deleted)
 * nor expired, of a user who is not disabled, in an enabled app.
 */
async function introspectRefreshToken(
  db: Queryable,
  config: Config,
  slug: string,
  serverKey: string,
  token: string,
): Promise<ActiveRefreshToken | typeof INACTIVE> {
  const [row] = await rowsOf<{
    key_ok: boolean | null;
    enabled: boolean;
    user_id: string | null;
    disabled: boolean | null;
    email: string | null;
    email_verified: boolean | null;
    created_at: Date | string | null;
    expires_at: Date | string | null;
  }>(
    db,
    sql`
    SELECT a.server_key_hash = ${await sha256Hex(serverKey)} AS key_ok, a.enabled,
           u.id AS user_id, u.disabled, u.email, u.email_verified, t.created_at, t.expires_at
      FROM auth_apps a
      LEFT JOIN auth_refresh_tokens t ON t.auth_app_id = a.id AND t.token_hash = ${await sha256Hex(token)}
           AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now()
      LEFT JOIN auth_users u ON u.id = t.user_id
     WHERE a.app_id = ${slug}`,
  );
  if (row?.key_ok !== true) throw wrongKey();
  if (!row.enabled || !row.user_id || row.disabled || !row.created_at || !row.expires_at) return INACTIVE;
  return {
    active: true,
    token_type: 'refresh_token',
    client_id: slug,
    sub: row.user_id,
    iss: issuerOf(config, slug),
    exp: seconds(row.expires_at),
    iat: seconds(row.created_at),
    email: String(row.email),
    email_verified: row.email_verified === true,
  };
}

/** The subject a token claims when it is a user id (read unverified, only to fetch that user alongside). */
function claimedUser(token: string): string | null {
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === 'string' && isUuid(sub) ? sub : null;
  } catch {
    return null;
  }
}

interface Row {
  key_ok: boolean | null;
  enabled: boolean;
  signing_keys: StoredSigningKey[] | null;
  user_id: string | null;
  disabled: boolean | null;
  email: string | null;
  email_verified: boolean | null;
  revoked: boolean;
}

/**
 * Whether `token` is an active access or refresh token of app `slug`, asked with `serverKey`:
 * 401 invalid_client unless it is that app's current server key (another app's key, a rotated
 * one, or an unknown app alike). An access token is active when signed by one of the app's
 * published keys for its issuer and audience, unexpired and not revoked at /oauth/revoke, of a
 * user who exists and is not disabled, in an enabled app; a refresh token (told apart by its `tth_rt_` prefix, whatever
 * `token_type_hint` says, as RFC 7662 2.1 lets the server) when it can still be redeemed.
 */
export async function introspectToken(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  { slug, serverKey, token }: { slug: string; serverKey: string; token: string },
): Promise<ActiveToken | ActiveRefreshToken | typeof INACTIVE> {
  const db = ctx.http;
  const config = ctx.config;
  if (token.startsWith(TOKEN_PREFIX.refresh))
    return introspectRefreshToken(db, config, slug, serverKey, token);
  const claimed = claimedUser(token);
  const [row] = await rowsOf<Row>(
    db,
    sql`
    SELECT a.server_key_hash = ${await sha256Hex(serverKey)} AS key_ok, a.enabled, a.signing_keys,
           u.id AS user_id, u.disabled, u.email, u.email_verified, r.jti IS NOT NULL AS revoked
      FROM auth_apps a
      LEFT JOIN auth_users u ON u.auth_app_id = a.id AND u.id = ${claimed}::uuid
      LEFT JOIN auth_revoked_access_tokens r ON r.auth_app_id = a.id AND r.jti = ${claimedJti(token)}::uuid
           AND r.expires_at > now()
     WHERE a.app_id = ${slug}`,
  );
  if (row?.key_ok !== true) throw wrongKey();
  if (!row.enabled || !row.user_id || row.disabled || row.revoked) return INACTIVE;
  const iss = issuerOf(config, slug);
  const keys = createLocalJWKSet({ keys: publicJwks(row.signing_keys ?? []) as JWK[] });
  try {
    // `typ` JWT: an access token, never an ID token (which has none).
    const { payload } = await jwtVerify(token, keys, { issuer: iss, audience: slug, typ: 'JWT' });
    if (payload.sub !== row.user_id) return INACTIVE;
    return {
      active: true,
      token_type: 'Bearer',
      client_id: slug,
      sub: row.user_id,
      aud: slug,
      iss,
      exp: Number(payload.exp),
      iat: Number(payload.iat),
      jti: String(payload.jti),
      email: String(row.email),
      email_verified: row.email_verified === true,
    };
  } catch {
    return INACTIVE;
  }
}
