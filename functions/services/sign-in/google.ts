/**
 * Google: the authorization redirect, the code exchange of the browser flow, and ID-token
 * verification against Google's JWKS. The key set is cached per isolate and fetched again only
 * when a token names a kid it lacks (at most once per cooldown), never per request.
 */
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { Config } from '../../config';
import {
  CLOCK_SKEW_SECONDS,
  checkIdTokenClaims,
  headerProblem,
  ID_TOKEN_ALG,
  type IdTokenIdentity,
  type IdTokenProblem,
} from '../../domain/id-token-rules';
import { sha256Base64url } from '../../lib/crypto';
import { OAuthError } from '../../lib/oauth-error';
import type { IdentifyInput, SignInProvider } from './provider';
import { ProviderFailure, providerJson } from './provider-failure';
import type { ProviderIdentity } from './users';

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

/** The outcome of verifying an ID token. */
export type IdTokenResult = { ok: true; identity: IdTokenIdentity } | { ok: false; problem: IdTokenProblem };

/**
 * Verifies a Google ID token: alg and kid are checked before any key is fetched, then the
 * signature against the JWKS, then iss, aud/azp, exp, iat, nonce and e-mail by the domain rules.
 */
export async function verifyGoogleIdToken(
  config: Config,
  token: string,
  audiences: readonly string[],
  nonces: readonly string[] | undefined,
  skipNonceCheck = false,
): Promise<IdTokenResult> {
  const invalid = (reason: string): IdTokenResult => ({ ok: false, problem: { kind: 'invalid', reason } });
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return invalid('not a JWT');
  }
  const problem = headerProblem(header);
  if (problem) return { ok: false, problem };
  let claims: Record<string, unknown>;
  try {
    // jose checks the signature (RS256 only) and exp/nbf; the domain rules check the rest.
    const verified = await jwtVerify(token, keySet(config.GOOGLE_JWKS_URL), {
      algorithms: [ID_TOKEN_ALG],
      clockTolerance: CLOCK_SKEW_SECONDS,
    });
    claims = verified.payload as Record<string, unknown>;
  } catch (err) {
    if (err instanceof errors.JOSEError && TOKEN_ERRORS.has(err.code))
      return invalid('signature or key not accepted');
    // Anything else is the key set itself failing (unreachable, not 200, not a JWKS): not the token's fault.
    throw new OAuthError(503, "Google's signing keys could not be fetched; try again");
  }
  return checkIdTokenClaims(claims, {
    issuers: config.googleIssuers,
    audiences,
    nowSeconds: Math.floor(Date.now() / 1000),
    nonces,
    skipNonceCheck,
  });
}

/** Where the browser goes to sign in with Google. */
export async function googleAuthorizeUrl(
  config: Config,
  input: { clientId: string; callbackUri: string; state: string; nonce: string; verifier: string },
): Promise<string> {
  const url = new URL(config.GOOGLE_AUTHORIZE_URL);
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', input.callbackUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid email profile');
  url.searchParams.set('state', input.state);
  url.searchParams.set('nonce', input.nonce);
  url.searchParams.set('code_challenge', await sha256Base64url(input.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/** Exchanges Google's authorization code for its ID token. */
export async function googleIdTokenForCode(
  config: Config,
  input: { clientId: string; clientSecret: string; code: string; callbackUri: string; verifier: string },
): Promise<string> {
  const json = await providerJson('Google token exchange', config.GOOGLE_TOKEN_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.callbackUri,
      client_id: input.clientId,
      client_secret: input.clientSecret,
      code_verifier: input.verifier,
    }),
  });
  if (typeof json.id_token !== 'string')
    throw new ProviderFailure('Google token exchange: no ID token returned');
  return json.id_token;
}

/** The browser flow's Google sign-in: exchanges the code and verifies the ID token it returns. */
export async function googleIdentity(config: Config, input: IdentifyInput): Promise<ProviderIdentity> {
  const idToken = await googleIdTokenForCode(config, input);
  // Only the web client ID is a valid audience here, and the nonce must be the one we sent.
  const result = await verifyGoogleIdToken(config, idToken, [input.clientId], [input.nonce]);
  if (!result.ok) throw new ProviderFailure(`Google ID token rejected: ${result.problem.reason}`);
  return asProviderIdentity(result.identity);
}

/** The user-facing identity of a verified Google ID token. */
export function asProviderIdentity(identity: IdTokenIdentity): ProviderIdentity {
  return {
    provider: 'google',
    subject: identity.subject,
    email: identity.email,
    emailVerified: identity.emailVerified,
    name: identity.name,
    avatarUrl: identity.picture,
  };
}

/** Google as a sign-in provider: its ID token must echo the nonce sent. */
export const google: SignInProvider = {
  sendsNonce: true,
  authorizeUrl: (config, input) => {
    if (!input.nonce) throw new Error('a Google sign-in needs a nonce');
    return googleAuthorizeUrl(config, { ...input, nonce: input.nonce });
  },
  identify: googleIdentity,
};
