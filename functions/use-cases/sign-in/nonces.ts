/**
 * Nonces Tether issues for native sign-in (contract §9), and the admission of a verified ID
 * token. A nonce in an ID token proves nothing by itself (anyone holding the token reads it);
 * one Tether issued, burnt by the first sign-in whose token carries it, makes a captured token
 * useless. Issued nonces are stateless: an expiry and a random part under a MAC bound to the
 * app (43 base64url characters, like any random nonce), so issuing one stores nothing and costs no app-wide budget. What a sign-in used up (the
 * token itself and the issued nonce it is bound to) is burnt in the app's OneTimeCodes object in
 * the same step that counts the app's window, so a replay is refused before it counts and the
 * burn list is bounded by admitted sign-ins.
 */

import type { IdTokenIdentity } from '../../domain/id-token-rules';
import { fromBase64url, type Keyring, sha256Hex } from '../../lib/crypto';
import { base64url } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import { appChecks, enforce, RATE_WINDOW_MS } from './rate-limit';

/** An issued nonce may be used for ten minutes. */
export const NONCE_TTL_SECONDS = 600;

/** Nonces per client (an IPv6 client by its /64) per 15 minutes; a sign-in takes one. */
export const NONCE_CLIENT_LIMIT = 30;

/** How long a burnt token or nonce is remembered at most: past any Google ID token's lifetime (one hour). */
const BURNT_MEMORY_CAP_MS = 2 * 3600 * 1000;

const macInput = (slug: string, head: Uint8Array) => `nonce ${slug} ${base64url(head)}`;

/** An issued nonce's bytes: its expiry (4, unix seconds), 12 random, 16 of its MAC; 43 base64url characters. */
const HEAD_BYTES = 16;
const TAG_BYTES = 16;

/** Issues a nonce for `client` of app `slug` (429 with Retry-After past the client's limit). */
export async function issueNonce(
  ctx: Pick<RequestContext, 'config' | 'rateLimiter'>,
  { slug, client }: { slug: string; client: string },
): Promise<{ nonce: string; expires_in: number }> {
  enforce(
    await ctx.rateLimiter.take(
      `nonce:${slug}`,
      [{ key: `client:${client}`, limit: NONCE_CLIENT_LIMIT }],
      RATE_WINDOW_MS,
    ),
  );
  const head = crypto.getRandomValues(new Uint8Array(HEAD_BYTES));
  new DataView(head.buffer).setUint32(0, Math.floor(Date.now() / 1000) + NONCE_TTL_SECONDS);
  const nonce = new Uint8Array(HEAD_BYTES + TAG_BYTES);
  nonce.set(head);
  nonce.set(await ctx.config.keyring.mac(macInput(slug, head), TAG_BYTES), HEAD_BYTES);
  return { nonce: base64url(nonce), expires_in: NONCE_TTL_SECONDS };
}

/** Whether `nonce` is one this service issued for app `slug` and it has not expired. */
export async function isIssuedNonce(keyring: Keyring, slug: string, nonce: string): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(nonce)) return false;
  const bytes = fromBase64url(nonce);
  const head = bytes.slice(0, HEAD_BYTES);
  if (new DataView(head.buffer).getUint32(0) * 1000 <= Date.now()) return false;
  return keyring.verifyMac(macInput(slug, head), bytes.slice(HEAD_BYTES));
}

/** The raw nonce a token is bound to: the request's when the claim is it or its SHA-256 hex, else the claim. */
async function rawNonceOf(claim: string, requestNonce: string | undefined): Promise<string> {
  if (requestNonce === undefined) return claim;
  return claim === requestNonce || claim === (await sha256Hex(requestNonce)) ? requestNonce : claim;
}

/** What a sign-in with a verified ID token needs to be admitted. */
export interface IdTokenAdmission {
  slug: string;
  requireIssuedNonce: boolean;
  /** The ID token as sent (its signed part names it in the burn list). */
  idToken: string;
  identity: Pick<IdTokenIdentity, 'nonce' | 'expiresAt'>;
  /** The request's `nonce`, if any. */
  requestNonce: string | undefined;
}

/**
 * Admits a verified ID token of the app, in this order: with `require_issued_nonce`, a token
 * bound to no nonce this service issued is refused; a token used before, or bound to an issued
 * nonce a sign-in burnt, is refused; only then is the app's window counted (429 when spent) and
 * the token and its nonce burnt. Refusals are 401 invalid_token and count nowhere.
 */
export async function admitIdToken(
  ctx: Pick<RequestContext, 'codes' | 'config'>,
  a: IdTokenAdmission,
): Promise<void> {
  const refuse = () => new OAuthError(401, 'invalid id token', 'invalid_token');
  const raw = a.identity.nonce === null ? null : await rawNonceOf(a.identity.nonce, a.requestNonce);
  const issued = raw !== null && (await isIssuedNonce(ctx.config.keyring, a.slug, raw));
  if (a.requireIssuedNonce && !issued) throw refuse();
  // The signed part (header and claims) names the token: a re-encoded signature is the same token.
  const signed = a.idToken.split('.').slice(0, 2).join('.');
  const burns = [await sha256Hex(`id-token ${signed}`)];
  if (issued) burns.push(await sha256Hex(raw));
  const now = Date.now();
  const keepUntil = Math.min(Math.max(a.identity.expiresAt * 1000 + 60_000, now), now + BURNT_MEMORY_CAP_MS);
  const admission = await ctx.codes
    .scope(`nonces:${a.slug}`)
    .admitSignIn(burns, keepUntil, appChecks('id-token'), RATE_WINDOW_MS);
  if (admission.reused) throw refuse();
  enforce(admission.decision);
}
