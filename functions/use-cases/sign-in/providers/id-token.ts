/**
 * Verification of a provider's ID token against its JWKS (Google, Apple): alg and kid are
 * checked before any key is fetched, then the signature, then iss, aud/azp, exp, iat, nonce and
 * e-mail by the domain rules. A key set is cached per isolate and fetched again only when a
 * token names a kid it lacks (at most once per cooldown), never per request. A provider may have
 * several key sets (`npm start`: the Google stand-in's beside Google's own): they are tried in
 * order and the first that holds the token's kid decides.
 */
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import {
  CLOCK_SKEW_SECONDS,
  checkIdTokenClaims,
  headerProblem,
  ID_TOKEN_ALG,
  type IdTokenResult,
} from '../../../domain/id-token-rules';
import { OAuthError } from '../../../lib/oauth-error';

/** Minimum time between fetches triggered by an unknown kid. */
const JWKS_COOLDOWN_MS = 30_000;

/** jose errors that mean the token is bad (as opposed to the key set being unreachable). */
const TOKEN_ERRORS = new Set([
  'ERR_JWS_INVALID',
  'ERR_JWT_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWK_INVALID',
]);

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySet(url: string): ReturnType<typeof createRemoteJWKSet> {
  let set = keySets.get(url);
  if (!set) {
    // cacheMaxAge Infinity: keys are re-read only when a token names one we do not have.
    set = createRemoteJWKSet(new URL(url), {
      cooldownDuration: JWKS_COOLDOWN_MS,
      cacheMaxAge: Number.POSITIVE_INFINITY,
    });
    keySets.set(url, set);
  }
  return set;
}

/** What a token is checked against. */
export interface IdTokenCheck {
  /** The provider's name for people, in the 503 when its keys cannot be fetched. */
  title: string;
  /** The provider's key sets, tried in order. */
  jwksUrls: readonly string[];
  issuers: readonly string[];
  audiences: readonly string[];
  nonces: readonly string[] | undefined;
  skipNonceCheck?: boolean;
}

/**
 * The token's claims once a key of the first set holding its kid verified the signature (RS256
 * only) and exp/nbf; undefined when the token is bad. A set that cannot be fetched is skipped;
 * when no other set holds the kid either, that is a 503 (the token may be good).
 */
async function verifiedClaims(
  token: string,
  check: IdTokenCheck,
): Promise<Record<string, unknown> | undefined> {
  let unreachable = false;
  for (const url of check.jwksUrls) {
    try {
      const verified = await jwtVerify(token, keySet(url), {
        algorithms: [ID_TOKEN_ALG],
        clockTolerance: CLOCK_SKEW_SECONDS,
      });
      return verified.payload as Record<string, unknown>;
    } catch (err) {
      const code = err instanceof errors.JOSEError ? err.code : undefined;
      if (code === 'ERR_JWKS_NO_MATCHING_KEY') continue;
      if (code !== undefined && TOKEN_ERRORS.has(code)) return undefined;
      // Anything else is the key set itself failing (unreachable, not 200, not a JWKS): not the token's fault.
      unreachable = true;
    }
  }
  if (unreachable) throw new OAuthError(503, `${check.title}'s signing keys could not be fetched; try again`);
  return undefined;
}

/** Verifies a provider ID token (see the file comment). */
export async function verifyIdToken(token: string, check: IdTokenCheck): Promise<IdTokenResult> {
  const invalid = (reason: string): IdTokenResult => ({ ok: false, problem: { kind: 'invalid', reason } });
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return invalid('not a JWT');
  }
  const problem = headerProblem(header);
  if (problem) return { ok: false, problem };
  const claims = await verifiedClaims(token, check);
  if (!claims) return invalid('signature or key not accepted');
  return checkIdTokenClaims(claims, {
    issuers: check.issuers,
    audiences: check.audiences,
    nowSeconds: Math.floor(Date.now() / 1000),
    nonces: check.nonces,
    skipNonceCheck: check.skipNonceCheck === true,
  });
}
