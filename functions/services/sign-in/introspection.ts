/**
 * Token introspection (RFC 7662) for an app's backend: the server key the app's connected sites
 * hold (SERVICE_AUTH_SERVER_KEY) asks whether an access token of that app is active now, which
 * a signature check alone cannot tell once the end user was disabled or the app turned off.
 * One metadata read: the app, the key's match and the user the token claims, together.
 */
import { sql } from 'drizzle-orm';
import { createLocalJWKSet, decodeJwt, type JWK, jwtVerify } from 'jose';
import { type Queryable, rowsOf } from '../../../db/client';
import type { StoredSigningKey } from '../../../db/schema';
import type { Config } from '../../config';
import { sha256Hex } from '../../lib/crypto';
import { isUuid } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import { issuerOf } from './sessions';
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
}

/**
 * Whether `token` is an active access token of app `slug`, asked with `serverKey`: 401
 * invalid_client unless it is that app's current server key (another app's key, a rotated one,
 * or an unknown app alike). Active means signed by one of the app's published keys for its
 * issuer and audience, unexpired, of a user who exists and is not disabled, in an enabled app.
 */
export async function introspectToken(
  db: Queryable,
  config: Config,
  slug: string,
  serverKey: string,
  token: string,
): Promise<ActiveToken | typeof INACTIVE> {
  const claimed = claimedUser(token);
  const [row] = await rowsOf<Row>(
    db,
    sql`
    SELECT a.server_key_hash = ${await sha256Hex(serverKey)} AS key_ok, a.enabled, a.signing_keys,
           u.id AS user_id, u.disabled, u.email, u.email_verified
      FROM auth_apps a
      LEFT JOIN auth_users u ON u.auth_app_id = a.id AND u.id = ${claimed}::uuid
     WHERE a.app_id = ${slug}`,
  );
  if (row?.key_ok !== true) {
    throw new OAuthError(
      401,
      "present this app's SERVICE_AUTH_SERVER_KEY as a Bearer token",
      'invalid_client',
    );
  }
  if (!row.enabled || !row.user_id || row.disabled) return INACTIVE;
  const iss = issuerOf(config, slug);
  const keys = createLocalJWKSet({ keys: publicJwks(row.signing_keys ?? []) as JWK[] });
  try {
    const { payload } = await jwtVerify(token, keys, { issuer: iss, audience: slug });
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
