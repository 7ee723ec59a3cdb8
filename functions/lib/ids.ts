/** Ids and random secrets: every id and token of the service comes from here. */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new random (v4) uuid. */
export const newId = (): string => crypto.randomUUID();

/** Whether a string is a uuid (any version). */
export const isUuid = (value: string): boolean => UUID_RE.test(value);

/** Bytes as standard base64, padded. */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `bytes` random bytes as base64url. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Token prefixes make every secret recognisable (and findable by secret scanners). */
export const TOKEN_PREFIX = {
  operator: 'tth_op_',
  account: 'tth_at_',
  session: 'tth_ss_',
  apiKey: 'tth_pk_',
  serverKey: 'tth_sk_',
  refresh: 'tth_rt_',
  invitation: 'tth_iv_',
} as const;

/** A new secret with a recognisable prefix and 256 bits of randomness. */
export const newSecret = (prefix: keyof typeof TOKEN_PREFIX): string =>
  TOKEN_PREFIX[prefix] + randomToken(32);

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters of [a-z0-9], uniformly drawn (rejection sampling, no modulo bias). */
export function randomLowerAlnum(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (b < 252 && out.length < length) out += LOWER_ALNUM[b % 36];
    }
  }
  return out;
}

/** A password safe in URLs and connection strings: 32 characters of [A-Za-z0-9]. */
export function randomPassword(length = 32): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (b < 248 && out.length < length) out += alphabet[b % 62];
    }
  }
  return out;
}
