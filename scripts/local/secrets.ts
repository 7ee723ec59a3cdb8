/**
 * The secrets a Tether needs, generated on this machine: the operator token, the encryption
 * key ring and the session-signing key. Used by the local stack (once per data folder) and by
 * `npm run secrets` for a deployment.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';

/** OPERATOR_TOKEN, ENCRYPTION_KEYS and AUTH_SIGNING_JWK. */
export interface GeneratedSecrets {
  OPERATOR_TOKEN: string;
  ENCRYPTION_KEYS: string;
  AUTH_SIGNING_JWK: string;
}

/** A new operator token: `tth_op_` and 43 base64url characters (32 random bytes). */
export function generateOperatorToken(): string {
  return `tth_op_${randomBytes(32).toString('base64url')}`;
}

/** A new ES256 private JWK (JSON text) whose `kid` is its RFC 7638 thumbprint. */
export function generateSigningJwk(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  const thumbprint = createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
  return JSON.stringify({ ...jwk, kid: thumbprint, alg: 'ES256', use: 'sig' });
}

/** The three secrets every Tether needs, newly generated. */
export function generateSecrets(): GeneratedSecrets {
  return {
    OPERATOR_TOKEN: generateOperatorToken(),
    ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    AUTH_SIGNING_JWK: generateSigningJwk(),
  };
}
