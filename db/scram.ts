/**
 * SCRAM-SHA-256 password verifiers (RFC 5802, RFC 7677) in PostgreSQL's stored form. Tether
 * sets database passwords with a verifier instead of the password, so the secret itself never
 * reaches the database server: a statement the server logs (any failed one is logged with its
 * text) shows only the verifier, which cannot be used to log in. PostgreSQL stores a verifier
 * it is given as it is. Written here because the Postgres drivers compute only the client's
 * side of the exchange, in Node-only code; WebCrypto has every primitive needed.
 */

/** Bytes as standard base64, padded (db/ imports nothing of functions/). */
function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

const ITERATIONS = 4096;
const SALT_BYTES = 16;
const encoder = new TextEncoder();

async function hmac(key: ArrayBuffer, message: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', k, encoder.encode(message));
}

/** The client key, its hash (the stored key) and the server key for `password` (RFC 5802). */
export async function scramKeys(
  password: string,
  salt: Uint8Array,
  iterations = ITERATIONS,
): Promise<{ clientKey: ArrayBuffer; storedKey: ArrayBuffer; serverKey: ArrayBuffer }> {
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
    clientKey,
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

/** The keys of a password for one salt and iteration count: the same for every login of a role. */
const loginKeys = new Map<string, ReturnType<typeof scramKeys>>();
const MAX_LOGIN_KEYS = 64;

/**
 * The client's final message of a SCRAM-SHA-256 login (RFC 5802 section 3) and the server
 * signature that must come back: `clientNonce` is what the client's first message sent,
 * `serverFirst` the server's answer (`r=<nonce>,s=<salt>,i=<iterations>`). The salted keys,
 * one PBKDF2 of 4,096 rounds in a single WebCrypto call, are kept per password, salt and
 * count, so a session opened again for the same role costs two HMACs.
 */
export async function scramClientFinal(
  password: string,
  clientNonce: string,
  serverFirst: string,
  /** The user name of the client's first message; PostgreSQL's clients send `*`. */
  user = '*',
): Promise<{ response: string; serverSignature: string }> {
  const attrs = new Map(serverFirst.split(',').map((pair) => [pair.slice(0, 1), pair.slice(2)] as const));
  const nonce = attrs.get('r') ?? '';
  const salt = attrs.get('s') ?? '';
  const iterations = Number(attrs.get('i'));
  if (!nonce.startsWith(clientNonce) || nonce.length <= clientNonce.length || !/^[!-+--~]+$/.test(nonce))
    throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: server nonce does not extend the client nonce');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(salt)) throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: bad salt');
  if (!(Number.isInteger(iterations) && iterations > 0))
    throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: bad iteration count');
  const cacheKey = `${iterations}:${salt}:${password}`;
  let keys = loginKeys.get(cacheKey);
  if (!keys) {
    if (loginKeys.size >= MAX_LOGIN_KEYS) loginKeys.clear();
    keys = scramKeys(
      password,
      Uint8Array.from(atob(salt), (c) => c.charCodeAt(0)),
      iterations,
    );
    keys.catch(() => loginKeys.delete(cacheKey));
    loginKeys.set(cacheKey, keys);
  }
  const { clientKey, storedKey, serverKey } = await keys;
  const withoutProof = `c=biws,r=${nonce}`;
  const authMessage = `n=${user},r=${clientNonce},${serverFirst},${withoutProof}`;
  const signature = new Uint8Array(await hmac(storedKey, authMessage));
  const proof = new Uint8Array(clientKey).map((byte, i) => byte ^ (signature[i] ?? 0));
  return {
    response: `${withoutProof},p=${base64(proof)}`,
    serverSignature: base64(new Uint8Array(await hmac(serverKey, authMessage))),
  };
}
