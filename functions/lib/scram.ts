/**
 * SCRAM-SHA-256 password verifiers (RFC 5802, RFC 7677) in PostgreSQL's stored form. Tether
 * sets database passwords with a verifier instead of the password, so the secret itself never
 * reaches the database server: a statement the server logs (any failed one is logged with its
 * text) shows only the verifier, which cannot be used to log in. PostgreSQL stores a verifier
 * it is given as it is. Written here because the Postgres drivers compute only the client's
 * side of the exchange, in Node-only code; WebCrypto has every primitive needed.
 */
import { base64 } from './ids';

const ITERATIONS = 4096;
const SALT_BYTES = 16;
const encoder = new TextEncoder();

async function hmac(key: ArrayBuffer, message: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', k, encoder.encode(message));
}

/** The salted password, client key's hash and server key for `password` (ASCII, as Tether makes them). */
export async function scramKeys(
  password: string,
  salt: Uint8Array,
  iterations = ITERATIONS,
): Promise<{ storedKey: ArrayBuffer; serverKey: ArrayBuffer }> {
  const base = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, [
    'deriveBits',
  ]);
  const salted = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    base,
    256,
  );
  const clientKey = await hmac(salted, 'Client Key');
  return {
    storedKey: await crypto.subtle.digest('SHA-256', clientKey),
    serverKey: await hmac(salted, 'Server Key'),
  };
}

/** `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, PostgreSQL's rolpassword form. */
export async function scramVerifier(password: string): Promise<string> {
  if (!/^[\x21-\x7e]+$/.test(password)) {
    // Other characters would need SASLprep first; Tether's generated passwords never have them.
    throw new Error('a SCRAM verifier is only made for printable ASCII passwords');
  }
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const { storedKey, serverKey } = await scramKeys(password, salt);
  const b64 = (bytes: ArrayBuffer | Uint8Array) => base64(new Uint8Array(bytes));
  return `SCRAM-SHA-256$${ITERATIONS}:${b64(salt)}$${b64(storedKey)}:${b64(serverKey)}`;
}
