/**
 * Hashing, constant-time comparison, HMAC signing and AES-GCM encryption at rest.
 * Ciphertexts are `<keyId>.<iv b64url>.<ciphertext b64url>` so keys can rotate: the first key of
 * ENCRYPTION_KEYS encrypts, every listed key decrypts.
 */
import { base64url } from './ids';

const encoder = new TextEncoder();

/** The bytes of a base64url text. */
export function fromBase64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const binary = atob(b64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const HEX_PAIRS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function toHex(buffer: ArrayBuffer): string {
  let hex = '';
  for (const b of new Uint8Array(buffer)) hex += HEX_PAIRS[b];
  return hex;
}

/** SHA-256 of a string, as lower-case hex. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/** SHA-256 of a string, as base64url without padding (the PKCE S256 transform). */
export async function sha256Base64url(text: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text))));
}

/** Compares two strings in time that depends only on their lengths. */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  let diff = ab.length ^ bb.length;
  const n = Math.max(ab.length, bb.length);
  for (let i = 0; i < n; i++) diff |= (ab[i] ?? 0) ^ (bb[i] ?? 0);
  return diff === 0;
}

/** Hex HMAC-SHA256 of `body` under `secret` (the X-Signature of deliveries). */
export async function hmacSha256Hex(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return toHex(await crypto.subtle.sign('HMAC', key, encoder.encode(body)));
}

/** An HMAC key derived from an encryption key (HKDF), so no key serves two purposes. */
async function macKeyOf(raw: Uint8Array): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode('tether mac') },
    base,
    { name: 'HMAC', hash: 'SHA-256', length: 256 },
    false,
    ['sign', 'verify'],
  );
}

/** The keys that encrypt secrets at rest, parsed from `k1:<base64>,k0:<base64>`. */
export class Keyring {
  private readonly keys = new Map<string, Promise<CryptoKey>>();
  private readonly macKeys = new Map<string, Promise<CryptoKey>>();
  readonly currentId: string;

  constructor(spec: string) {
    const entries = spec
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (entries.length === 0) throw new Error('ENCRYPTION_KEYS holds no key');
    let first: string | undefined;
    for (const entry of entries) {
      const sep = entry.indexOf(':');
      const id = entry.slice(0, sep);
      const raw = fromBase64url(entry.slice(sep + 1));
      if (sep < 1 || raw.length !== 32)
        throw new Error(`ENCRYPTION_KEYS entry ${id || '?'} is not id:<32 bytes base64>`);
      this.keys.set(id, crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']));
      this.macKeys.set(id, macKeyOf(raw));
      first ??= id;
    }
    this.currentId = first as string;
  }

  /** Encrypts a secret under the current key. */
  async encrypt(plaintext: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const key = await (this.keys.get(this.currentId) as Promise<CryptoKey>);
    const data = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: encoder.encode(this.currentId) },
      key,
      encoder.encode(plaintext),
    );
    return `${this.currentId}.${base64url(iv)}.${base64url(new Uint8Array(data))}`;
  }

  /** The first `length` bytes of an HMAC of `text` under a key derived from the current one: proof this service made it. */
  async mac(text: string, length: number): Promise<Uint8Array> {
    const key = await (this.macKeys.get(this.currentId) as Promise<CryptoKey>);
    return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text))).slice(0, length);
  }

  /** Whether `tag` is a {@link mac} of `text` under any listed key (compared in constant time). */
  async verifyMac(text: string, tag: Uint8Array): Promise<boolean> {
    let match = false;
    for (const key of this.macKeys.values()) {
      const full = new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(text)));
      let diff = full.length < tag.length || tag.length === 0 ? 1 : 0;
      for (let i = 0; i < tag.length; i++) diff |= (full[i] ?? 0) ^ (tag[i] ?? 0);
      match ||= diff === 0;
    }
    return match;
  }

  /** Decrypts a ciphertext made by `encrypt` under any listed key. */
  async decrypt(ciphertext: string): Promise<string> {
    const [id, iv, data] = ciphertext.split('.');
    const key = id ? this.keys.get(id) : undefined;
    if (!key || !iv || !data) throw new Error('ciphertext under an unknown key');
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64url(iv), additionalData: encoder.encode(id) },
      await key,
      fromBase64url(data),
    );
    return new TextDecoder().decode(plain);
  }
}
