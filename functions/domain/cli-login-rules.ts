/**
 * Rules of `tether login`: the loopback redirect of the browser flow (RFC 8252: an IP literal
 * on this machine, any port, no userinfo or fragment) and the user code of the device flow
 * (RFC 8628: eight letters without vowels, shown as ABCD-EFGH, typed in any case and spacing).
 */

/** The browser flow's one-time code lives this long (seconds). */
export const CLI_CODE_TTL_SECONDS = 120;
/** The device flow's codes live this long (seconds). */
export const DEVICE_CODE_TTL_SECONDS = 600;
/** The device flow's polling interval (seconds); each `slow_down` adds five (RFC 8628, 3.5). */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** Wrong user codes one person (and one client) may type per window before being refused. */
export const USER_CODE_TRIES = 10;
/** A CLI login's personal token lives this many days. */
export const CLI_TOKEN_DAYS = 90;

/** The grant types of POST /api/v1/cli/token. */
export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * Letters a user code is drawn from: consonants only, so no code spells a word, and none that
 * is easily mistaken for a digit (RFC 8628, 6.1). 20^8 codes: about 34 bits.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** The user code as people read it: ABCD-EFGH. */
export const formatUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

/** A typed user code as stored (eight upper-case letters), or null when it cannot be one. */
export function normaliseUserCode(typed: string): string | null {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== USER_CODE_LENGTH) return null;
  return [...letters].every((ch) => USER_CODE_ALPHABET.includes(ch)) ? letters : null;
}

/** A new user code from `random` bytes (rejection sampling: no letter more likely than another). */
export function userCodeFrom(random: (n: number) => Uint8Array): string {
  const n = USER_CODE_ALPHABET.length;
  const cutoff = 256 - (256 % n);
  let out = '';
  while (out.length < USER_CODE_LENGTH) {
    for (const b of random(USER_CODE_LENGTH * 2)) {
      if (b < cutoff && out.length < USER_CODE_LENGTH) out += USER_CODE_ALPHABET[b % n];
    }
  }
  return out;
}

/** Loopback hosts a CLI may listen on: IP literals only (RFC 8252, 8.3: `localhost` may resolve elsewhere). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

/**
 * Why `uri` is refused as the CLI's redirect, or null: it must be `http://127.0.0.1:<port>/…`
 * or `http://[::1]:<port>/…`, written exactly as a browser would parse it, without userinfo or
 * fragment. Nothing else is a redirect target, so the code can never leave this machine.
 */
export function loopbackRedirectProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'redirect_uri is not a URL';
  }
  if (url.protocol !== 'http:') return 'redirect_uri must be http on a loopback address';
  if (!LOOPBACK_HOSTS.has(url.hostname)) return 'redirect_uri must name 127.0.0.1 or [::1]';
  if (url.port === '') return 'redirect_uri must name the port the CLI listens on';
  if (url.username || url.password || uri.includes('@')) return 'redirect_uri may not carry userinfo';
  if (url.hash || uri.includes('#')) return 'redirect_uri may not carry a fragment';
  // The text and the parse must name the same origin (no encoded or odd spellings of the host).
  if (!uri.startsWith(`${url.origin}/`) && uri !== url.origin) return 'redirect_uri is not written plainly';
  return null;
}

/** `redirectUri` with `params` added to its query (the CLI's callback). */
export function callbackUrl(redirectUri: string, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}
