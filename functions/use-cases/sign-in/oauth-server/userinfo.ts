/**
 * The OpenID Connect UserInfo of an access token (docs/contract.md §15): the token must be one
 * of the app's own access tokens (its `typ` JWT, so an ID token is not one), signed by a key the
 * app publishes for its issuer and audience and unexpired, of a user who exists and is not
 * disabled in an enabled app, and not revoked (access-revocation.ts); the answer is that user as
 * they are now. One metadata read.
 */
import { sql } from 'drizzle-orm';
import { createLocalJWKSet, decodeJwt, type JWK, jwtVerify } from 'jose';
import { rowsOf } from '../../../../db/client';
import type { StoredSigningKey } from '../../../../db/schema';
import { isUuid } from '../../../lib/ids';
import { StandardOAuthError } from '../../../lib/standard-oauth-error';
import type { RequestContext } from '../../../request-context';
import { issuerOf } from '../auth-urls';
import { publicJwks } from '../signing-keys';
import { claimedJti } from './access-revocation';

/** UserInfo's answer. */
export interface UserInfo {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

/** The 401 of a token that is not an active access token of the app (RFC 6750 §3.1). */
export const invalidToken = () =>
  new StandardOAuthError(401, 'invalid_token', 'the access token is invalid, expired or revoked');

/** The user id an access token claims (read unverified, only to fetch that user alongside). */
function claimedUser(token: string): string | null {
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === 'string' && isUuid(sub) ? sub : null;
  } catch {
    return null;
  }
}

/** The UserInfo of `token` for app `slug`, or 401 invalid_token. */
export async function userInfo(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  { slug, token }: { slug: string; token: string },
): Promise<UserInfo> {
  const claimed = claimedUser(token);
  if (!claimed) throw invalidToken();
  const [row] = await rowsOf<{
    enabled: boolean;
    signing_keys: StoredSigningKey[] | null;
    user_id: string | null;
    disabled: boolean | null;
    email: string | null;
    email_verified: boolean | null;
    name: string | null;
    revoked: boolean;
  }>(
    ctx.http,
    sql`
    SELECT a.enabled, a.signing_keys, u.id AS user_id, u.disabled, u.email, u.email_verified, u.name,
           r.jti IS NOT NULL AS revoked
      FROM auth_apps a
      LEFT JOIN auth_users u ON u.auth_app_id = a.id AND u.id = ${claimed}::uuid
      LEFT JOIN auth_revoked_access_tokens r ON r.auth_app_id = a.id AND r.jti = ${claimedJti(token)}::uuid
           AND r.expires_at > now()
     WHERE a.app_id = ${slug}`,
  );
  if (!row?.enabled || !row.user_id || row.disabled || row.revoked) throw invalidToken();
  const keys = createLocalJWKSet({ keys: publicJwks(row.signing_keys ?? []) as JWK[] });
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: issuerOf(ctx.config, slug),
      audience: slug,
      typ: 'JWT',
    });
    if (payload.sub !== row.user_id) throw invalidToken();
  } catch {
    throw invalidToken();
  }
  return {
    sub: row.user_id,
    email: String(row.email),
    email_verified: row.email_verified === true,
    ...(row.name ? { name: row.name } : {}),
  };
}
