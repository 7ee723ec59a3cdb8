/**
 * Nonces Tether issues for native sign-in (contract §9). A nonce in an ID token proves nothing
 * by itself (anyone holding the token reads it); one Tether issued, burnt by the first sign-in
 * whose token carries it, makes a captured token useless. Issued nonces live in a OneTimeCodes
 * Durable Object of their own per app, under the SHA-256 of the nonce only; the object's alarm
 * removes them when they expire, and a burnt one is remembered while a token bound to it could
 * still be valid.
 */

import type { CodeStore } from '../../adapters/code-store';
import type { IdTokenIdentity } from '../../domain/id-token-rules';
import { sha256Hex } from '../../lib/crypto';
import { randomToken } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import type { NonceBurn } from '../../objects/one-time-codes';
import { enforce, RATE_WINDOW_MS } from './rate-limit';

/** An issued nonce may be used for ten minutes. */
export const NONCE_TTL_SECONDS = 600;

/**
 * Nonces per client (an IPv6 client by its /64) and per app, per 15 minutes. A sign-in takes one;
 * the app ceiling only bounds what an object stores and sits far above any real app's use,
 * since nothing an anonymous caller sends can prove it belongs to the app.
 */
export const NONCE_LIMITS = { client: 30, app: 100_000 } as const;

/** How long a burnt nonce is remembered at most: past any Google ID token's lifetime (one hour). */
const BURNT_MEMORY_CAP_MS = 2 * 3600 * 1000;

const noncesOf = (codes: CodeStore, slug: string) => codes.scope(`nonces:${slug}`);

/** Issues a nonce for `client` of app `slug` (429 with Retry-After past the limits). */
export async function issueNonce(
  codes: CodeStore,
  slug: string,
  client: string,
): Promise<{ nonce: string; expires_in: number }> {
  const nonce = randomToken(32);
  const decision = await noncesOf(codes, slug).countAndIssue(
    [
      { key: `client:${client}`, limit: NONCE_LIMITS.client },
      { key: 'app', limit: NONCE_LIMITS.app },
    ],
    RATE_WINDOW_MS,
    await sha256Hex(nonce),
    NONCE_TTL_SECONDS * 1000,
  );
  enforce(decision);
  return { nonce, expires_in: NONCE_TTL_SECONDS };
}

/**
 * Burns the issued nonce a token's `nonce` claim carries, raw or as its SHA-256 hex: 'burnt' the
 * first time, 'reused' ever after (while the token may live), 'unknown' for a nonce Tether did
 * not issue (or one that expired unused).
 */
export async function burnIssuedNonce(
  codes: CodeStore,
  slug: string,
  tokenNonce: string,
  tokenExpiresAtSeconds: number,
): Promise<NonceBurn> {
  const hashes = [await sha256Hex(tokenNonce)];
  if (/^[0-9a-f]{64}$/.test(tokenNonce)) hashes.push(tokenNonce);
  const now = Date.now();
  const keepUntil = Math.min(Math.max(tokenExpiresAtSeconds * 1000 + 60_000, now), now + BURNT_MEMORY_CAP_MS);
  return noncesOf(codes, slug).burnNonce(hashes, keepUntil);
}

/**
 * The issued-nonce rules of a verified ID token: a token bound to an issued nonce burns it, and
 * one whose nonce was burnt before is refused; with `require_issued_nonce` a token bound to no
 * nonce Tether issued is refused too. Refusals are 401 invalid_token.
 */
export async function enforceIssuedNonce(
  codes: CodeStore,
  slug: string,
  requireIssued: boolean,
  identity: Pick<IdTokenIdentity, 'nonce' | 'expiresAt'>,
): Promise<void> {
  const refuse = () => new OAuthError(401, 'invalid id token', 'invalid_token');
  if (identity.nonce === null) {
    if (requireIssued) throw refuse();
    return;
  }
  const burn = await burnIssuedNonce(codes, slug, identity.nonce, identity.expiresAt);
  if (burn === 'reused' || (burn === 'unknown' && requireIssued)) throw refuse();
}
