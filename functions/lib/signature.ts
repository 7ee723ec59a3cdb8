/**
 * The signature of a delivery to a receiver (CONTRACT §6). Kept in this one function so the
 * format can change in one place.
 */
import { hmacSha256Hex } from './crypto';

/** The headers that sign `body` with `secret`: `X-Signature: sha256=<hex HMAC-SHA256(body)>`. */
export async function signatureHeaders(secret: string, body: string): Promise<Record<string, string>> {
  return { 'x-signature': `sha256=${await hmacSha256Hex(secret, body)}` };
}
