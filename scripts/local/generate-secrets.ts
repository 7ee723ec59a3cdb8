/**
 * The secrets a Tether needs, generated on this machine: the operator token and the encryption
 * key ring (each auth app's signing key is made and kept encrypted by Tether itself). Used by
 * the local stack (once per data folder) and by `npm run secrets` for a deployment.
 */
import { randomBytes } from 'node:crypto';

/** OPERATOR_TOKEN and ENCRYPTION_KEYS. */
export interface GeneratedSecrets {
  OPERATOR_TOKEN: string;
  ENCRYPTION_KEYS: string;
}

/** A new operator token: `tth_op_` and 43 base64url characters (32 random bytes). */
export function generateOperatorToken(): string {
  return `tth_op_${randomBytes(32).toString('base64url')}`;
}

/** The two secrets every Tether needs, newly generated. */
export function generateSecrets(): GeneratedSecrets {
  return {
    OPERATOR_TOKEN: generateOperatorToken(),
    ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };
}
