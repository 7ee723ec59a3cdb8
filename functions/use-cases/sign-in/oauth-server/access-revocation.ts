/**
 * Revoking an access token (RFC 7009; docs/contract.md §15): its `jti` goes on the app's
 * deny-list (auth_revoked_access_tokens) until the token would have expired, and introspection
 * and UserInfo read that list in the one query they already make (a LEFT JOIN on the `jti` the
 * token claims), so the check adds no round trip to them. The revocation itself costs two: the
 * app's keys to verify the token (only a token the app signed, unexpired, goes on the list) and
 * the insert, which also sweeps the app's expired rows.
 */
import { sql } from 'drizzle-orm';
import { createLocalJWKSet, decodeJwt, type JWK, jwtVerify } from 'jose';
import { rowsOf } from '../../../../db/client';
import type { StoredSigningKey } from '../../../../db/schema';
import { isUuid } from '../../../lib/ids';
import type { RequestContext } from '../../../request-context';
import { issuerOf } from '../auth-urls';
import { publicJwks } from '../signing-keys';

/** The `jti` a token claims when it is one of ours (a UUID), read unverified, to look it up alongside; null otherwise. */
export function claimedJti(token: string): string | null {
  try {
    const jti = decodeJwt(token).jti;
    return typeof jti === 'string' && isUuid(jti) ? jti : null;
  } catch {
    return null;
  }
}

/**
 * Puts `token`, an access token of app `slug`, on the app's deny-list until it expires. A token
 * that is not one (another app's, an ID token, expired, forged, not a JWT) changes nothing, as
 * RFC 7009 §2.2 answers every token alike. Whether it was revoked now is returned.
 */
export async function revokeAccessToken(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  { slug, token }: { slug: string; token: string },
): Promise<boolean> {
  const jti = claimedJti(token);
  if (jti === null) return false;
  const [app] = await rowsOf<{ id: string; signing_keys: StoredSigningKey[] | null }>(
    ctx.http,
    sql`SELECT id, signing_keys FROM auth_apps WHERE app_id = ${slug}`,
  );
  if (!app) return false;
  let exp: number;
  try {
    const keys = createLocalJWKSet({ keys: publicJwks(app.signing_keys ?? []) as JWK[] });
    // `typ` JWT: an access token, never an ID token (which has none).
    const { payload } = await jwtVerify(token, keys, {
      issuer: issuerOf(ctx.config, slug),
      audience: slug,
      typ: 'JWT',
    });
    exp = Number(payload.exp);
  } catch {
    return false;
  }
  await rowsOf(
    ctx.http,
    sql`
    WITH swept AS (
      DELETE FROM auth_revoked_access_tokens WHERE auth_app_id = ${app.id}::uuid AND expires_at <= now()
    )
    INSERT INTO auth_revoked_access_tokens (auth_app_id, jti, expires_at)
    VALUES (${app.id}::uuid, ${jti}::uuid, to_timestamp(${exp}))
    ON CONFLICT DO NOTHING`,
  );
  return true;
}
