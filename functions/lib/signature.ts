/**
 * The signature of a delivery to a receiver (contract §6 and §9). Kept in this one function so
 * the format can change in one place.
 */
import { hmacSha256Hex } from './crypto';

/**
 * The headers that sign `body` with `secret`: `X-Signature: t=<unix seconds>,sha256=<hex
 * HMAC-SHA256 of "<t>.<body>">`, so a receiver can refuse a replay more than five minutes old.
 */
export async function signatureHeaders(
  secret: string,
  body: string,
  now = Date.now(),
): Promise<Record<string, string>> {
  const t = Math.floor(now / 1000);
  return { 'x-signature': `t=${t},sha256=${await hmacSha256Hex(secret, `${t}.${body}`)}` };
}
