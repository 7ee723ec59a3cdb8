/** PKCE rules (RFC 7636 as docs/auth-service.md narrows them): S256 only, verifier 43 to 128 unreserved characters. */

/** A code_verifier: 43 to 128 characters of A-Z a-z 0-9 - . _ ~. */
export const CODE_VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** A code_challenge: BASE64URL(SHA-256(verifier)) without padding is always 43 characters. */
export const CODE_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

/** The only challenge method accepted; `plain` would hand the verifier to anyone who sees the redirect. */
export const CHALLENGE_METHOD = 'S256';

/** Whether `verifier` follows the code_verifier rule. */
export const isCodeVerifier = (verifier: string): boolean => CODE_VERIFIER_RE.test(verifier);

/** Whether `challenge` has the shape of an S256 code_challenge. */
export const isCodeChallenge = (challenge: string): boolean => CODE_CHALLENGE_RE.test(challenge);

/**
 * Checks the PKCE parameters of an authorization request; returns why they are refused, or null.
 * No challenge at all is allowed (the web fragment flow); a challenge needs method S256 spelled out,
 * since an absent method means `plain` (RFC 7636 §4.3).
 */
export function challengeProblem(challenge: string | undefined, method: string | undefined): string | null {
  if (challenge === undefined) {
    return method === undefined ? null : 'code_challenge_method given without code_challenge';
  }
  if (method !== CHALLENGE_METHOD) {
    return method === undefined || method === 'plain'
      ? 'code_challenge_method must be S256 (plain is not accepted)'
      : `code_challenge_method must be S256, not ${method}`;
  }
  if (!isCodeChallenge(challenge))
    return 'code_challenge must be 43 characters of base64url (S256 of the verifier)';
  return null;
}
