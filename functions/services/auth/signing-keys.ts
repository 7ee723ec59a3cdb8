/**
 * The key that signs access tokens, from AUTH_SIGNING_JWK: one private JWK, or `{"keys":[...]}`
 * whose first key signs while every key is published (so a new key can be rolled in before the
 * old one stops verifying). Imported once per isolate.
 */
import { importJWK, type JWK } from 'jose';

/** The signing key and the public JWK set. */
export interface SigningKeys {
  key: CryptoKey;
  kid: string;
  alg: string;
  publicJwks: JWK[];
}

const PUBLIC_MEMBERS: Record<string, readonly string[]> = {
  EC: ['kty', 'crv', 'x', 'y'],
  OKP: ['kty', 'crv', 'x'],
  RSA: ['kty', 'n', 'e'],
};

function algOf(jwk: JWK): string {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  throw new Error('AUTH_SIGNING_JWK: give the key an alg (ES256 or EdDSA)');
}

/** The public half of a JWK, with kid, alg and use. */
function publicPart(jwk: JWK): JWK {
  const members = PUBLIC_MEMBERS[jwk.kty ?? ''];
  if (!members) throw new Error(`AUTH_SIGNING_JWK: unsupported key type ${String(jwk.kty)}`);
  const out: Record<string, unknown> = {};
  for (const m of members) out[m] = (jwk as Record<string, unknown>)[m];
  return { ...out, kid: jwk.kid, alg: algOf(jwk), use: 'sig' } as JWK;
}

async function load(source: string): Promise<SigningKeys> {
  const parsed = JSON.parse(source) as JWK | { keys: JWK[] };
  const jwks = 'keys' in parsed && Array.isArray(parsed.keys) ? parsed.keys : [parsed as JWK];
  const signer = jwks[0];
  if (!signer?.d) throw new Error('AUTH_SIGNING_JWK: the first key must be a private key');
  if (!signer.kid) throw new Error('AUTH_SIGNING_JWK: the first key needs a kid');
  const alg = algOf(signer);
  const key = (await importJWK(signer, alg)) as CryptoKey;
  return { key, kid: signer.kid, alg, publicJwks: jwks.map(publicPart) };
}

let cached: { source: string; keys: Promise<SigningKeys> } | undefined;

/** The signing keys of `source` (AUTH_SIGNING_JWK), imported on first use. */
export function signingKeys(source: string): Promise<SigningKeys> {
  if (cached?.source !== source) {
    const keys = load(source);
    // A failed import is retried by the next request instead of being cached.
    keys.catch(() => {
      if (cached?.keys === keys) cached = undefined;
    });
    cached = { source, keys };
  }
  return cached.keys;
}
