/**
 * One-time codes of the mobile flow and the provider sign-in state, kept in OneTimeCodes Durable
 * Objects under the SHA-256 of the secret only. An app's codes live in one object of their own,
 * which also holds the exchange's rate windows, so an exchange is counted and its code redeemed
 * in one call; the app limit (600 exchanges per 15 minutes) keeps that object far from busy.
 * A code looked up under another app's slug is simply not there. Provider sign-in state, which
 * the per-client start limit bounds, is spread over 16 objects per app by the hash's first hex
 * digit, each holding at most its share of the app's pending sign-ins.
 */
import type { StoredSigningKey } from '../../../db/schema';
import type { CodeStore } from '../../adapters/code-store';
import { sha256Base64url, sha256Hex, timingSafeEqual } from '../../lib/crypto';
import { randomToken } from '../../lib/ids';
import { OAuthError } from '../../lib/oauth-error';
import type { RateCheck, RateDecision } from '../../objects/fixed-window';
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

/** The subject that stands for every code of an app (OneTimeCodes' EVERY_SUBJECT). */
const EVERY_SUBJECT = '*';

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

/** The object holding an app's one-time codes, their blocks and the exchange's rate windows. */
const codesOf = (codes: CodeStore, slug: string) => codes.scope(`codes:${slug}`);

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
const hashOf = (secret: string): Promise<string> | null =>
  SECRET_RE.test(secret) ? sha256Hex(secret) : null;

/** Issues a one-time code for 120 seconds. */
export async function issueCode(
  ctx: CodesContext,
  { slug, record }: { slug: string; record: CodeRecord },
): Promise<string> {
  const { secret, hash } = await newSecretWithHash();
  await codesOf(ctx.codes, slug).issue(hash, JSON.stringify(record), CODE_TTL_MS, record.userId);
  return secret;
}

/**
 * Counts one exchange request against `checks` (and `presentedChecks` when the code is live) and,
 * when it is allowed and presents a code, takes that code in the same call: its record (and any block on its user or app) the first
 * time within its lifetime, null ever after. Burnt either way; a refused request burns nothing.
 */
export async function countAndRedeemCode(
  ctx: CodesContext,
  input: {
    slug: string;
    checks: RateCheck[];
    windowMs: number;
    code: string | null;
    presentedChecks?: RateCheck[];
  },
): Promise<{ decision: RateDecision; taken: TakenCode | null }> {
  const { slug, checks, windowMs, code, presentedChecks = [] } = input;
  const hash = code === null ? null : await hashOf(code);
  const { decision, redeemed } = await codesOf(ctx.codes, slug).countAndRedeem(
    checks,
    windowMs,
    hash,
    presentedChecks,
  );
  const taken =
    redeemed === null
      ? null
      : { record: JSON.parse(redeemed.value) as CodeRecord, block: redeemed.block as CodeBlock | null };
  return { decision, taken };
}

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

/**
 * Blocks redeeming the codes of a user (or, with no user, of the whole app), for `ttlMs` or
 * until unblocked. Outstanding codes are refused from then on.
 */
export async function blockCodes(
  ctx: CodesContext,
  input: { slug: string; userId: string | null; reason: CodeBlock; ttlMs?: number | null },
): Promise<void> {
  const { slug, userId, reason, ttlMs = null } = input;
  await codesOf(ctx.codes, slug).block(userId ?? EVERY_SUBJECT, reason, ttlMs);
}

/** Lifts a block set by {@link blockCodes}. */
export async function unblockCodes(
  ctx: CodesContext,
  { slug, userId }: { slug: string; userId: string | null },
): Promise<void> {
  await codesOf(ctx.codes, slug).unblock(userId ?? EVERY_SUBJECT);
}

/**
 * Lets a re-enabled user's new codes through. Codes issued while the user was enabled before
 * carry refresh tokens the disable revoked, so they stay refused (invalid_grant) until they
 * expire: a client never gets a session whose refresh token is already dead.
 */
export async function unblockNewCodes(
  ctx: CodesContext,
  { slug, userId }: { slug: string; userId: string },
): Promise<void> {
  await codesOf(ctx.codes, slug).liftForNewRecords(userId, 'disabled', 'revoked', CODE_TTL_MS);
}

/** Whether BASE64URL(SHA-256(verifier)) equals the challenge, compared in constant time. */
export async function verifierMatches(verifier: string, challenge: string): Promise<boolean> {
  return timingSafeEqual(await sha256Base64url(verifier), challenge);
}

/** A fresh secret for nonces and our own PKCE verifier towards a provider. */
export const newNonce = (): string => randomToken(32);
