// @ts-check
/**
 * PKCE and query strings with nothing a React Native runtime may lack: base64url by hand (no
 * btoa), query strings by hand (React Native's URL and URLSearchParams are partial).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `bytes` as unpadded base64url.
 * @param {Uint8Array} bytes
 */
export function base64url(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | (b << 8) | c;
    const chars = [18, 12, 6, 0].map((shift) => ALPHABET[(n >> shift) & 63]).join('');
    out += chars.slice(0, Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6)));
  }
  return out;
}

/**
 * `bytes` as lower-case hex.
 * @param {ArrayBuffer} bytes
 */
export const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * A query string of `params` (values percent-encoded).
 * @param {Record<string, string>} params
 */
export const queryString = (params) =>
  Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

/**
 * The query parameters of a URL of any scheme (`myapp://auth?code=…`), last one of a name wins.
 * @param {string} url
 * @returns {Record<string, string>}
 */
export function queryOf(url) {
  const q = url.indexOf('?');
  if (q < 0) return {};
  /** @type {Record<string, string>} */
  const params = {};
  for (const part of (url.slice(q + 1).split('#')[0] ?? '').split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const decode = (/** @type {string} */ s) => decodeURIComponent(s.replace(/\+/g, ' '));
    params[decode(eq < 0 ? part : part.slice(0, eq))] = eq < 0 ? '' : decode(part.slice(eq + 1));
  }
  return params;
}
