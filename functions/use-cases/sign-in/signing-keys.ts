/**
 * The keys that sign an auth app's access tokens: one ES256 key per app, made with the app, its
 * private half kept encrypted on the app row. An app's JWKS publishes only its own keys, so a
 * relying party that forgets to check `aud` still cannot accept another tenant's token. A key is
 * decrypted and imported once per isolate.
 */

import { sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Queryable } from '../../../db/client';
import { rowsOf } from '../../../db/client';
import type { StoredSigningKey } from '../../../db/schema';
import type { Config } from '../../config';
import { newId } from '../../lib/ids';

/** The algorithm of every app key. */
export const SIGNING_ALG = 'ES256';

/** The signing key of a token, ready to sign. */
export interface Signer {
  key: CryptoKey;
  kid: string;
  alg: string;
}

/** A new key for an app: P-256, the private JWK encrypted with the service's keyring. */
export async function newSigningKey(config: Config): Promise<StoredSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId();
  const pub = await exportJWK(publicKey);
  const priv = await exportJWK(privateKey);
  return {
    kid,
    alg: SIGNING_ALG,
    public_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y, kid, alg: SIGNING_ALG, use: 'sig' },
    private_jwk_ciphertext: await config.keyring.encrypt(JSON.stringify({ ...priv, kid, alg: SIGNING_ALG })),
    created_at: new Date().toISOString(),
  };
}

/** Imported private keys by kid; bounded so an isolate serving many apps does not grow without end. */
const imported = new Map<string, Promise<CryptoKey>>();
const MAX_IMPORTED = 1000;

/** The signer of a stored key, decrypted and imported once per isolate. */
export async function signerOf(config: Config, stored: StoredSigningKey): Promise<Signer> {
  let key = imported.get(stored.kid);
  if (!key) {
    if (imported.size >= MAX_IMPORTED) imported.clear();
    key = config.keyring
      .decrypt(stored.private_jwk_ciphertext)
      .then((json) => importJWK(JSON.parse(json) as JWK, stored.alg) as Promise<CryptoKey>);
    // A failed import is retried by the next request instead of being cached.
    key.catch(() => imported.delete(stored.kid));
    imported.set(stored.kid, key);
  }
  return { key: await key, kid: stored.kid, alg: stored.alg };
}

/**
 * How long a replaced key is still published: the life of an access token it signed, plus that
 * of a one-time code issued just before the rotation (its session is signed when redeemed), plus
 * a minute of clock skew.
 */
export const RETIRED_KEY_GRACE_MS = (900 + 120 + 60) * 1000;

/** Whether a key still verifies tokens at `now`: the current one, or one retired within the grace. */
export const isPublished = (key: StoredSigningKey, now: number = Date.now()): boolean =>
  key.retired_at === undefined || Date.parse(key.retired_at) + RETIRED_KEY_GRACE_MS > now;

/** The public JWKs an app publishes: its own keys still in use, and nothing else. */
export const publicJwks = (
  keys: readonly StoredSigningKey[],
  now: number = Date.now(),
): Record<string, unknown>[] => keys.filter((key) => isPublished(key, now)).map((key) => key.public_jwk);

/** The key that signs an app's new tokens: its current one (neither the published next nor retired). */
export function currentKeyOf(keys: readonly StoredSigningKey[]): StoredSigningKey | undefined {
  return keys.find((key) => !key.next && !key.retired_at) ?? keys.find((key) => !key.next);
}

/** The app's published next key, if it has one. */
export const nextKeyOf = (keys: readonly StoredSigningKey[]): StoredSigningKey | undefined =>
  keys.find((key) => key.next === true);

/** A new next key: published at once, signing nothing until a rotation promotes it. */
export async function newNextKey(config: Config): Promise<StoredSigningKey> {
  return { ...(await newSigningKey(config)), next: true };
}

/** The keys of a new app: the current key and the next one, both published from the start. */
export async function firstKeys(config: Config): Promise<StoredSigningKey[]> {
  return [await newSigningKey(config), await newNextKey(config)];
}

/**
 * The app's keys after a rotation: the published next key becomes current (a verifier that
 * fetched the JWKS before already holds it), a new next key is published, the replaced key is
 * retired (published until its last token expired) and expired ones are gone. An app without a
 * next key (made before apps had one) gets a new current key as well.
 */
export async function rotatedKeys(
  config: Config,
  keys: readonly StoredSigningKey[],
): Promise<StoredSigningKey[]> {
  const now = Date.now();
  const next = nextKeyOf(keys);
  const promoted: StoredSigningKey = next
    ? {
        kid: next.kid,
        alg: next.alg,
        public_jwk: next.public_jwk,
        private_jwk_ciphertext: next.private_jwk_ciphertext,
        created_at: next.created_at,
      }
    : await newSigningKey(config);
  const retired = keys
    .filter((key) => key !== next)
    .map((key) => (key.retired_at ? key : { ...key, retired_at: new Date(now).toISOString() }))
    .filter((key) => isPublished(key, now));
  return [promoted, await newNextKey(config), ...retired];
}

/**
 * The app's keys, making its first ones when it has none (an app made before apps had keys of
 * their own) and publishing a next key when it has none (an app made before next keys): one
 * conditional UPDATE, so concurrent first uses agree on one set.
 */
export async function ensureSigningKeys(
  db: Queryable,
  config: Config,
  app: { id: string; signingKeys: StoredSigningKey[] },
): Promise<StoredSigningKey[]> {
  const keys = app.signingKeys;
  if (keys.length > 0 && nextKeyOf(keys)) return keys;
  const wanted = keys.length === 0 ? await firstKeys(config) : [...keys, await newNextKey(config)];
  const [row] = await rowsOf<{ signing_keys: StoredSigningKey[] }>(
    db,
    sql`UPDATE auth_apps SET signing_keys = CASE WHEN signing_keys = ${JSON.stringify(keys)}::jsonb
          THEN ${JSON.stringify(wanted)}::jsonb ELSE signing_keys END
        WHERE id = ${app.id}::uuid RETURNING signing_keys`,
  );
  if (!row || row.signing_keys.length === 0) throw new Error(`auth app ${app.id} has no signing key`);
  return row.signing_keys;
}

/** The key that signs the app's new tokens (its current one), made first if the app has none. */
export async function currentSigningKey(
  db: Queryable,
  config: Config,
  app: { id: string; signingKeys: StoredSigningKey[] },
): Promise<StoredSigningKey> {
  const current = currentKeyOf(app.signingKeys);
  if (current && nextKeyOf(app.signingKeys)) return current;
  return currentKeyOf(await ensureSigningKeys(db, config, app)) as StoredSigningKey;
}
