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

/** The app's keys after a rotation: a new current key first, the old ones retired, the expired ones gone. */
export async function rotatedKeys(
  config: Config,
  keys: readonly StoredSigningKey[],
): Promise<StoredSigningKey[]> {
  const now = Date.now();
  const retired = keys
    .map((key) => (key.retired_at ? key : { ...key, retired_at: new Date(now).toISOString() }))
    .filter((key) => isPublished(key, now));
  return [await newSigningKey(config), ...retired];
}

/**
 * The app's keys, making its first one when it has none (an app made before apps had keys of
 * their own): one conditional UPDATE, so concurrent first uses agree on one key.
 */
export async function ensureSigningKeys(
  db: Queryable,
  config: Config,
  app: { id: string; signingKeys: StoredSigningKey[] },
): Promise<StoredSigningKey[]> {
  if (app.signingKeys.length > 0) return app.signingKeys;
  const first = JSON.stringify([await newSigningKey(config)]);
  const [row] = await rowsOf<{ signing_keys: StoredSigningKey[] }>(
    db,
    sql`UPDATE auth_apps SET signing_keys = CASE WHEN signing_keys = '[]'::jsonb THEN ${first}::jsonb ELSE signing_keys END
        WHERE id = ${app.id}::uuid RETURNING signing_keys`,
  );
  if (!row || row.signing_keys.length === 0) throw new Error(`auth app ${app.id} has no signing key`);
  return row.signing_keys;
}

/** The key that signs the app's new tokens (its newest), made first if the app has none. */
export async function currentSigningKey(
  db: Queryable,
  config: Config,
  app: { id: string; signingKeys: StoredSigningKey[] },
): Promise<StoredSigningKey> {
  return (await ensureSigningKeys(db, config, app))[0] as StoredSigningKey;
}
