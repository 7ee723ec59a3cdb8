/**
 * OpenID Connect ID tokens of an auth app (docs/contract.md §15): ES256 by the app's current key,
 * `iss` the app's issuer, `aud` its client_id (the app_id), the user's `sub`, `email`,
 * `email_verified`, the authorize request's `nonce`, `auth_time`, `iat` and `exp`. They carry no
 * `typ` header, so no route that takes an access token (its `typ` is `JWT`) accepts one.
 */
import { SignJWT } from 'jose';
import type { StoredSigningKey } from '../../../../db/schema';
import type { Config } from '../../../config';
import { issuerOf } from '../auth-urls';
import { ACCESS_TOKEN_TTL_SECONDS } from '../sessions';
import { signerOf } from '../signing-keys';
import type { UserBody } from '../users';

/** An ID token lives as long as the access token it comes with. */
export const ID_TOKEN_TTL_SECONDS = ACCESS_TOKEN_TTL_SECONDS;

/** What an ID token says. */
export interface IdTokenInput {
  slug: string;
  signingKey: StoredSigningKey;
  user: UserBody;
  /** The nonce of the authorize request (absent on a refresh, OpenID Connect Core §12.2). */
  nonce?: string;
  /** Unix seconds of the sign-in. */
  authTime: number;
  /** Whether the granted scope includes `profile` (then `name` is said when known). */
  profile: boolean;
}

/** Signs an ID token for `input.user`. */
export async function signIdToken(config: Config, input: IdTokenInput): Promise<string> {
  const { key, kid, alg } = await signerOf(config, input.signingKey);
  const claims: Record<string, unknown> = {
    email: input.user.email,
    email_verified: input.user.email_verified,
    auth_time: input.authTime,
  };
  if (input.nonce !== undefined) claims.nonce = input.nonce;
  if (input.profile && input.user.name) claims.name = input.user.name;
  return new SignJWT(claims)
    .setProtectedHeader({ alg, kid })
    .setIssuer(issuerOf(config, input.slug))
    .setAudience(input.slug)
    .setSubject(input.user.id)
    .setIssuedAt()
    .setExpirationTime(`${ID_TOKEN_TTL_SECONDS}s`)
    .sign(key);
}
