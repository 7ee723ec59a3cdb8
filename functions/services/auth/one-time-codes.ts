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

/** A one-time code lives this long (specification, Limits). */
export const CODE_TTL_MS = 120_000;
/** The provider sign-in may take this long (the user may have to type a password). */
export const STATE_TTL_MS = 10 * 60_000;

/** A code is 32 random bytes as base64url. */
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

/** What a one-time code stands for. Carrying the ids spares the exchange a lookup. */
export interface CodeRecord {
  appId: string;
  userId: string;
  challenge: string;
  redirectUri: string;
}

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

async function store(env: Bindings, purpose: Purpose, slug: string, secret: string) {
  const hash = await sha256Hex(secret);
  const ns = env.ONE_TIME_CODES;
  return { hash, stub: ns.get(ns.idFromName(`${purpose}:${slug}:${hash.slice(0, 1)}`)) };
}

async function issue(
  env: Bindings,
  purpose: Purpose,
  slug: string,
  value: unknown,
  ttlMs: number,
): Promise<string> {
  const secret = randomToken(32);
  const { hash, stub } = await store(env, purpose, slug, secret);
  await stub.issue(hash, JSON.stringify(value), ttlMs);
  return secret;
}

async function take<T>(env: Bindings, purpose: Purpose, slug: string, secret: string): Promise<T | null> {
  if (!SECRET_RE.test(secret)) return null;
  const { hash, stub } = await store(env, purpose, slug, secret);
  const value = await stub.redeem(hash);
  return value === null ? null : (JSON.parse(value) as T);
}

/** Issues a one-time code for 120 seconds. */
export const issueCode = (env: Bindings, slug: string, record: CodeRecord): Promise<string> =>
  issue(env, 'code', slug, record, CODE_TTL_MS);

/** Takes a code: its record the first time within its lifetime, null ever after (burnt either way). */
export const redeemCode = (env: Bindings, slug: string, code: string): Promise<CodeRecord | null> =>
  take<CodeRecord>(env, 'code', slug, code);

/** Keeps the provider sign-in state; returns the `state` value sent to the provider. */
export const issueState = (env: Bindings, slug: string, record: StateRecord): Promise<string> =>
  issue(env, 'state', slug, record, STATE_TTL_MS);

/** Takes the provider sign-in state (single use). */
export const takeState = (env: Bindings, slug: string, state: string): Promise<StateRecord | null> =>
  take<StateRecord>(env, 'state', slug, state);

/** Whether BASE64URL(SHA-256(verifier)) equals the challenge, compared in constant time. */
export async function verifierMatches(verifier: string, challenge: string): Promise<boolean> {
  return timingSafeEqual(await sha256Base64url(verifier), challenge);
}

/** A fresh secret for nonces and our own PKCE verifier towards a provider. */
export const newNonce = (): string => randomToken(32);
