/**
 * Rules for a provider ID token, applied to its header before any key is fetched and to its
 * claims after the signature checked out. Pure: the caller supplies the time and the accepted nonces.
 */

/** The only signature algorithm accepted (Google signs with RS256; `none` and HS* are never keys we hold). */
export const ID_TOKEN_ALG = 'RS256';

/** Clock skew tolerated on exp and iat, in seconds. */
export const CLOCK_SKEW_SECONDS = 60;

/** Why a token is refused. `no_email` is the one refusal that is not "invalid" (it answers 400). */
export type IdTokenProblem = { kind: 'invalid'; reason: string } | { kind: 'no_email'; reason: string };

/** The identity a valid token carries. */
export interface IdTokenIdentity {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  picture: string | null;
  /** The token's `nonce` claim, when it carries one (an issued nonce is burnt by it). */
  nonce: string | null;
  /** The token's `exp`, in seconds since the epoch. */
  expiresAt: number;
}

/** The outcome of verifying an ID token. */
export type IdTokenResult = { ok: true; identity: IdTokenIdentity } | { ok: false; problem: IdTokenProblem };

/** What the claims are checked against. */
export interface IdTokenExpectations {
  issuers: readonly string[];
  /** Client IDs the token may be addressed to (web, iOS, Android). */
  audiences: readonly string[];
  nowSeconds: number;
  /**
   * The nonce values the token may carry (native sign-in: the client's nonce and its SHA-256 hex,
   * as SDKs differ; browser flow: the one we sent). Undefined when the request had none.
   */
  nonces?: readonly string[];
  /**
   * Accept a token's nonce when the request sent none (the Google provider's `skip_nonce_check`,
   * for iOS SDKs that set a nonce they do not expose). Off unless set: contract §9.
   */
  skipNonceCheck?: boolean;
}

const invalid = (reason: string): IdTokenProblem => ({ kind: 'invalid', reason });

/** Checks the protected header: alg RS256 and a kid to look up. Run before any key is fetched. */
export function headerProblem(header: { alg?: unknown; kid?: unknown }): IdTokenProblem | null {
  if (header.alg !== ID_TOKEN_ALG) return invalid(`alg ${String(header.alg)} is not accepted`);
  if (typeof header.kid !== 'string' || header.kid === '') return invalid('the token names no key (kid)');
  return null;
}

const isString = (value: unknown): value is string => typeof value === 'string' && value !== '';

function audienceProblem(
  claims: Record<string, unknown>,
  audiences: readonly string[],
): IdTokenProblem | null {
  const aud = claims.aud;
  const list = Array.isArray(aud) ? aud : [aud];
  if (list.length === 0 || !list.every(isString)) return invalid('aud is missing');
  if (!list.some((a) => audiences.includes(a))) return invalid('aud is not a registered client ID');
  const azp = claims.azp;
  if (azp !== undefined && !(isString(azp) && audiences.includes(azp))) {
    return invalid('azp is not a registered client ID');
  }
  // With several audiences the authorised party must say which client the token is for.
  if (list.length > 1 && azp === undefined) return invalid('a token with several audiences needs azp');
  return null;
}

/**
 * contract §9: a token's nonce must match the request's (raw or SHA-256 hex), a request nonce
 * needs one in the token, and a token nonce without a request nonce passes only with
 * `skipNonceCheck`.
 */
function nonceProblem(claims: Record<string, unknown>, expect: IdTokenExpectations): IdTokenProblem | null {
  const carried = claims.nonce;
  if (carried !== undefined && !isString(carried)) return invalid('the nonce claim is not a string');
  if (expect.nonces === undefined) {
    if (carried !== undefined && !expect.skipNonceCheck)
      return invalid('the token carries a nonce but the request sent none');
    return null;
  }
  if (carried === undefined) return invalid('a nonce was sent but the token carries none');
  if (!expect.nonces.includes(carried)) return invalid('nonce does not match');
  return null;
}

/** Checks the verified claims; returns the identity, or the problem. */
export function checkIdTokenClaims(
  claims: Record<string, unknown>,
  expect: IdTokenExpectations,
): IdTokenResult {
  const fail = (problem: IdTokenProblem) => ({ ok: false as const, problem });
  if (!isString(claims.iss) || !expect.issuers.includes(claims.iss))
    return fail(invalid('iss is not accepted'));
  const aud = audienceProblem(claims, expect.audiences);
  if (aud) return fail(aud);
  if (typeof claims.exp !== 'number') return fail(invalid('exp is missing'));
  if (claims.exp + CLOCK_SKEW_SECONDS <= expect.nowSeconds) return fail(invalid('the token has expired'));
  if (typeof claims.iat !== 'number') return fail(invalid('iat is missing'));
  if (claims.iat - CLOCK_SKEW_SECONDS > expect.nowSeconds) return fail(invalid('iat is in the future'));
  if (typeof claims.nbf === 'number' && claims.nbf - CLOCK_SKEW_SECONDS > expect.nowSeconds) {
    return fail(invalid('the token is not valid yet'));
  }
  if (!isString(claims.sub)) return fail(invalid('sub is missing'));
  const nonce = nonceProblem(claims, expect);
  if (nonce) return fail(nonce);
  if (!isString(claims.email)) return fail({ kind: 'no_email', reason: 'the token carries no e-mail' });
  return {
    ok: true,
    identity: {
      subject: claims.sub,
      email: claims.email.toLowerCase(),
      // Google sends a boolean; some older tokens carried the string "true".
      emailVerified: claims.email_verified === true || claims.email_verified === 'true',
      name: isString(claims.name) ? claims.name : null,
      picture: isString(claims.picture) ? claims.picture : null,
      nonce: isString(claims.nonce) ? claims.nonce : null,
      expiresAt: claims.exp,
    },
  };
}
