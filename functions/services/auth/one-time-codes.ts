/**
 * One-time codes of the mobile flow and the provider sign-in state, kept in OneTimeCodes Durable
 * Objects under the SHA-256 of the secret only. Objects are sharded by app slug and the hash's
 * first hex digit: a code looked up under another app's slug is simply not there, and no single
 * object carries a busy app alone.
 */
import type { Bindings } from '../../env';
import { sha256Base64url, sha256Hex, timingSafeEqual } from '../../lib/crypto';
import { randomToken } from '../../lib/ids';
import type { Provider } from './apps';
import type { UserBody } from './users';

/** A one-time code lives this long (specification, Limits). */
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
}

/** Why a user's codes may not be redeemed (set by the users admin and app PATCH). */
export type CodeBlock = 'disabled' | 'deleted' | 'app_disabled';

/** How many objects one app's codes are spread over (the first hex digit of the hash). */
const SHARDS = 16;
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
}

type Purpose = 'code' | 'state';

const shard = (env: Bindings, purpose: Purpose, slug: string, digit: string) =>
  env.ONE_TIME_CODES.get(env.ONE_TIME_CODES.idFromName(`${purpose}:${slug}:${digit}`));

async function issue(
  env: Bindings,
  purpose: Purpose,
  slug: string,
  value: unknown,
  ttlMs: number,
  subject: string | null,
): Promise<string> {
  const secret = randomToken(32);
  const hash = await sha256Hex(secret);
  await shard(env, purpose, slug, hash.slice(0, 1)).issue(hash, JSON.stringify(value), ttlMs, subject);
  return secret;
}

async function take<T>(env: Bindings, purpose: Purpose, slug: string, secret: string) {
  if (!SECRET_RE.test(secret)) return null;
  const hash = await sha256Hex(secret);
  const taken = await shard(env, purpose, slug, hash.slice(0, 1)).redeem(hash);
  return taken === null
    ? null
    : { record: JSON.parse(taken.value) as T, block: taken.block as CodeBlock | null };
}

/** Issues a one-time code for 120 seconds. */
export const issueCode = (env: Bindings, slug: string, record: CodeRecord): Promise<string> =>
  issue(env, 'code', slug, record, CODE_TTL_MS, record.userId);

/**
 * Takes a code: its record (and any block on its user or app) the first time within its
 * lifetime, null ever after. Burnt either way.
 */
export const redeemCode = (env: Bindings, slug: string, code: string) =>
  take<CodeRecord>(env, 'code', slug, code);

/** Keeps the provider sign-in state; returns the `state` value sent to the provider. */
export const issueState = (env: Bindings, slug: string, record: StateRecord): Promise<string> =>
  issue(env, 'state', slug, record, STATE_TTL_MS, null);

/** Takes the provider sign-in state (single use). */
export async function takeState(env: Bindings, slug: string, state: string): Promise<StateRecord | null> {
  return (await take<StateRecord>(env, 'state', slug, state))?.record ?? null;
}

const everyShard = <T>(work: (digit: string) => Promise<T>) =>
  Promise.all(Array.from({ length: SHARDS }, (_, i) => work(i.toString(16))));

/**
 * Blocks redeeming the codes of a user (or, with no user, of the whole app) in every shard of
 * the app, for `ttlMs` or until unblocked. Outstanding codes are refused from then on.
 */
export async function blockCodes(
  env: Bindings,
  slug: string,
  userId: string | null,
  reason: CodeBlock,
  ttlMs: number | null = null,
): Promise<void> {
  await everyShard((digit) => shard(env, 'code', slug, digit).block(userId ?? EVERY_SUBJECT, reason, ttlMs));
}

/** Lifts a block set by {@link blockCodes}. */
export async function unblockCodes(env: Bindings, slug: string, userId: string | null): Promise<void> {
  await everyShard((digit) => shard(env, 'code', slug, digit).unblock(userId ?? EVERY_SUBJECT));
}

/** Whether BASE64URL(SHA-256(verifier)) equals the challenge, compared in constant time. */
export async function verifierMatches(verifier: string, challenge: string): Promise<boolean> {
  return timingSafeEqual(await sha256Base64url(verifier), challenge);
}

/** A fresh secret for nonces and our own PKCE verifier towards a provider. */
export const newNonce = (): string => randomToken(32);
