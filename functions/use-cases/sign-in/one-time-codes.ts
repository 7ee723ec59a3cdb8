/**
 * One-time codes of the mobile flow and the provider sign-in state, kept in OneTimeCodes Durable
 * Objects under the SHA-256 of the secret only. An app's codes live in objects of their own near
 * the user (code-regions.ts), which also hold the exchange's rate windows, so an exchange is
 * counted and its code redeemed in one call. A code looked up under another app's slug is
 * simply not there. Provider sign-in state, which
 * the per-client start limit bounds, is spread over 16 objects per app by the hash's first hex
 * digit, each holding at most its share of the app's pending sign-ins.
 */
import type { StoredSigningKey } from '../../../db/schema';
import type { CodeStore } from '../../adapters/code-store';
import { sha256Base64url, sha256Hex, timingSafeEqual } from '../../lib/crypto';
import { randomToken } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import type { Provider } from './apps';
import type { UserBody } from './users';

/** A one-time code lives this long (docs/auth-service.md). */
export const CODE_TTL_MS = 120_000;
/** The provider sign-in may take this long (the user may have to type a password). */
export const STATE_TTL_MS = 10 * 60_000;

/** A code is 32 random bytes as base64url. */
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

/**
 * What a one-time code stands for: everything the exchange answers with, so redeeming it needs
 * no Postgres. The session's refresh token was stored (as a hash) when the code was issued; the
 * record carries it encrypted under the service's keyring.
 */
export interface CodeRecord {
  appId: string;
  userId: string;
  challenge: string;
  redirectUri: string;
  user: UserBody;
  refreshCiphertext: string;
  /** The app's signing key (private half encrypted), so the exchange signs without Postgres. */
  signingKey: StoredSigningKey;
  /** What a sign-in started at the standard authorize endpoint asked for (contract §15). */
  oidc?: StandardGrant;
}

/** The scope and OpenID nonce of a sign-in started at /oauth/authorize, and when the user signed in. */
export interface StandardGrant {
  scope: string;
  nonce?: string;
  /** Unix seconds of the provider sign-in (the ID token's auth_time). */
  authTime: number;
}

/** Why a user's codes may not be redeemed (set by the users admin and app PATCH). */
export type CodeBlock = 'disabled' | 'deleted' | 'app_disabled' | 'revoked';

/** What the provider's callback needs to finish a sign-in started by /auth/{provider}. */
export interface StateRecord {
  appId: string;
  provider: Provider;
  redirectUri: string;
  /** The client's PKCE challenge; absent in the web fragment flow. */
  challenge?: string;
  /** The client's own state, handed back with the result. */
  clientState?: string;
  /** Nonce sent to the provider (Google), checked in its ID token. */
  nonce?: string;
  /** Our PKCE verifier towards the provider. */
  providerVerifier?: string;
  /** Set when the sign-in started at the standard authorize endpoint: its scope and OpenID nonce. */
  oidc?: { scope: string; nonce?: string };
}

/** What the functions here reach: the OneTimeCodes objects. */
export type CodesContext = Pick<RequestContext, 'codes'>;

/** A redeemed code: its record and any block on its user or app. */
export interface TakenCode {
  record: CodeRecord;
  block: CodeBlock | null;
}

/** The objects an app's pending browser sign-ins are spread over (by the state hash's first hex digit). */
export const STATE_OBJECTS_PER_APP = 16;

/** The object holding the provider sign-in state whose hash starts with `digit`. */
const statesOf = (codes: CodeStore, slug: string, digit: string) => codes.scope(`state:${slug}:${digit}`);

/** A new secret and its hash (the key it is stored under). */
async function newSecretWithHash(): Promise<{ secret: string; hash: string }> {
  const secret = randomToken(32);
  return { secret, hash: await sha256Hex(secret) };
}

/** The hash a presented secret is stored under, or null when it cannot be one of ours. */
export const hashOf = (secret: string): Promise<string> | null =>
  SECRET_RE.test(secret) ? sha256Hex(secret) : null;

/**
 * Keeps the provider sign-in state; returns the `state` value sent to the provider. An app keeps
 * at most `pendingPerApp` sign-ins in progress (its share in each state object): past that a new
 * start is 503 with Retry-After, and no sign-in in progress is ever pushed out.
 */
export async function issueState(
  ctx: CodesContext,
  { slug, record, pendingPerApp }: { slug: string; record: StateRecord; pendingPerApp: number },
): Promise<string> {
  const { secret, hash } = await newSecretWithHash();
  const cap = Math.max(1, Math.ceil(pendingPerApp / STATE_OBJECTS_PER_APP));
  const kept = await statesOf(ctx.codes, slug, hash.slice(0, 1)).issueWithin(
    hash,
    JSON.stringify(record),
    STATE_TTL_MS,
    cap,
  );
  if (!kept.stored) {
    throw new OAuthError(
      503,
      'too many sign-ins are in progress for this app; try again shortly',
      undefined,
      Math.max(1, Math.ceil(kept.retryAfterMs / 1000)),
    );
  }
  return secret;
}

/** Takes the provider sign-in state (single use). */
export async function takeState(
  ctx: CodesContext,
  { slug, state }: { slug: string; state: string },
): Promise<StateRecord | null> {
  const hash = await hashOf(state);
  if (hash === null) return null;
  const taken = await statesOf(ctx.codes, slug, hash.slice(0, 1)).redeem(hash);
  return taken === null ? null : (JSON.parse(taken.value) as StateRecord);
}

/** The provider sign-in state, left in place (null when unknown, used or expired). */
export async function peekState(
  ctx: CodesContext,
  { slug, state }: { slug: string; state: string },
): Promise<StateRecord | null> {
  const hash = await hashOf(state);
  if (hash === null) return null;
  const value = await statesOf(ctx.codes, slug, hash.slice(0, 1)).peek(hash);
  return value === null ? null : (JSON.parse(value) as StateRecord);
}

/** Whether BASE64URL(SHA-256(verifier)) equals the challenge, compared in constant time. */
export async function verifierMatches(verifier: string, challenge: string): Promise<boolean> {
  return timingSafeEqual(await sha256Base64url(verifier), challenge);
}

/** A fresh secret for nonces and our own PKCE verifier towards a provider. */
export const newNonce = (): string => randomToken(32);
