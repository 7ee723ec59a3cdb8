/**
 * The matching of a redirect_uri (and a browser's Origin) against an auth app's allowed origins
 * (contract §9); their registration is allowed-origins.ts.
 *
 * Registration accepts a custom scheme `<scheme>://<host>` (no path, port, query or wildcard),
 * an https origin of a verified-link domain (optionally with a path and a `*.` leftmost label),
 * and the loopback origins `http://127.0.0.1`, `http://[::1]` and `http://localhost` for
 * development (RFC 8252, 7.3). A redirect_uri matches when it parses as a URL whose origin
 * (scheme, host, port) is a registered one; any path and query may follow (under the entry's
 * path, when the entry has one). Userinfo, a fragment, and a host written in any other way than
 * the registered one (case aside: percent-encoding, IP spellings, IDNA, a trailing dot) are
 * refused: the text and the WHATWG parse a browser makes must both name the same host.
 */

/** Loopback hosts that may be registered over http (RFC 8252, 7.3); they match on any port. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'] as const;

/** The longest origin (and redirect_uri) taken. */
export const MAX_ORIGIN_LENGTH = 2048;

/** One DNS label. */
export const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';

/** A URL's origin and path as both its text and a browser's parser read them. */
interface ParsedUri {
  scheme: string;
  host: string;
  /** '' for the scheme's default port. */
  port: string;
  path: string;
}

const URI_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^#]*)$/;
const AUTHORITY_RE = /^(\[[0-9a-f:.]+\]|[a-z0-9._~!$&'()*+,;=-]+)(?::([0-9]{1,5}))?$/;

/**
 * Parses an absolute URL with an authority. Null for a fragment, userinfo, percent-encoding or
 * anything else in the host, and for a host the WHATWG parser reads differently than its text
 * (case aside), so the host that matched is the host the browser goes to.
 */
function parseUri(uri: string): ParsedUri | null {
  if (uri.length === 0 || uri.length > MAX_ORIGIN_LENGTH) return null;
  if (/[^\x21-\x7e]/.test(uri) || uri.includes('\\')) return null;
  const match = URI_RE.exec(uri);
  if (!match) return null;
  const authority = AUTHORITY_RE.exec((match[2] as string).toLowerCase());
  if (!authority) return null;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  const host = authority[1] as string;
  if (url.username !== '' || url.password !== '' || url.hostname.toLowerCase() !== host) return null;
  const scheme = (match[1] as string).toLowerCase();
  // The parser drops a default port (https://host:443 is https://host); any other must be the text's.
  if (authority[2] !== undefined && url.port !== '' && url.port !== String(Number(authority[2]))) return null;
  return { scheme, host, port: url.port, path: url.pathname };
}

/** Whether `host` is one DNS label followed by `.below`. */
function isOneLabelBelow(host: string, below: string): boolean {
  if (!host.endsWith(`.${below}`)) return false;
  return new RegExp(`^${LABEL}$`).test(host.slice(0, -below.length - 1));
}

function matchesEntry(uri: ParsedUri, entry: string): boolean {
  const registered = parseUri(entry.replace('://*.', '://wildcard.'));
  if (!registered || registered.scheme !== uri.scheme) return false;
  const wildcard = entry.startsWith('https://*.');
  const hostMatches = wildcard
    ? isOneLabelBelow(uri.host, registered.host.slice('wildcard.'.length))
    : uri.host === registered.host;
  if (!hostMatches) return false;
  const loopback = uri.scheme === 'http' && (LOOPBACK_HOSTS as readonly string[]).includes(uri.host);
  if (!loopback && uri.port !== registered.port) return false;
  // An entry with a path admits that path and anything below it.
  const base = registered.path === '/' ? '' : registered.path;
  return base === '' || uri.path === base || uri.path.startsWith(`${base}/`);
}

/**
 * The registered origin `redirectUri` matches, or null (contract §9): same scheme, host (case
 * aside) and port, any path and query after it; a loopback entry matches on any port; a
 * wildcard entry stands for exactly one DNS label and never for a custom scheme.
 */
export function matchRedirectUri(redirectUri: string, registered: readonly string[]): string | null {
  const uri = parseUri(redirectUri);
  if (!uri) return null;
  return registered.find((entry) => matchesEntry(uri, entry)) ?? null;
}

/** Whether a redirect target is an https URL. */
export const isHttpsRedirect = (redirectUri: string): boolean => /^https:\/\//i.test(redirectUri);

/**
 * Whether the web fragment flow (tokens in the URL fragment, no PKCE) may send tokens to a
 * redirect target: an https URL, or an http loopback one for local web development (contract §15).
 */
export function mayUseFragment(redirectUri: string): boolean {
  if (isHttpsRedirect(redirectUri)) return true;
  const host = /^http:\/\/(\[[^\]]*\]|[^/:?#]*)/i.exec(redirectUri)?.[1]?.toLowerCase();
  return host !== undefined && (LOOPBACK_HOSTS as readonly string[]).includes(host);
}

/**
 * Whether a browser's `Origin` (scheme, host, port) is one of the registered origins, whatever
 * path an entry names (CORS of the standard token endpoints, contract §15).
 */
export function matchOrigin(origin: string, registered: readonly string[]): boolean {
  const origins = registered.map((entry) => entry.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#]*).*$/i, '$1'));
  return matchRedirectUri(origin, origins) !== null;
}
