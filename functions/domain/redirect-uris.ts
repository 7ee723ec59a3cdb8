/**
 * Allowed origins of an auth app and the matching of a redirect_uri against them (contract §9).
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

import { getPublicSuffix } from 'tldts';
import { BROWSER_INTERNAL_SCHEMES, OS_HANDLED_SCHEMES, REFUSED_SCHEMES } from './refused-schemes';

/** Web schemes other than https: a plain-text redirect would leak the code or the tokens. */
const INSECURE_WEB_SCHEMES = ['http', 'ws', 'wss'];

/** Loopback hosts that may be registered over http (RFC 8252, 7.3); they match on any port. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'] as const;

/** At most this many origins per app, each at most this long. */
export const MAX_ORIGINS = 50;
export const MAX_ORIGIN_LENGTH = 2048;

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const CUSTOM_HOST_RE = /^[a-z0-9](?:[a-z0-9._-]{0,251}[a-z0-9])?$/;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN_RE = new RegExp(`^(?:${LABEL}\\.)+${LABEL}$`);
const PORT_RE = /^[1-9][0-9]{0,4}$/;
const PATH_RE = /^(?:\/[A-Za-z0-9\-._~!$&'()+,;=:@]+)+\/?$/;

/** How an allowed origin is used. */
export type OriginKind = 'custom_scheme' | 'https' | 'loopback';

/** The outcome of checking one origin for registration. */
export type OriginCheck = { ok: true; origin: string; kind: OriginKind } | { ok: false; reason: string };

const refuse = (reason: string): OriginCheck => ({ ok: false, reason });

/** Expo Go's scheme: its redirects name the development server, exp://<host>:<port>/--/<path>. */
const EXPO_GO_SCHEME = 'exp';

/** `exp://<host>:<port>` (Expo Go, contract §15): registered and matched exactly, port included. */
function checkExpoGo(authority: string): OriginCheck {
  const colon = authority.lastIndexOf(':');
  const host = (colon < 0 ? authority : authority.slice(0, colon)).toLowerCase();
  const port = colon < 0 ? '' : authority.slice(colon + 1);
  if (!PORT_RE.test(port) || Number(port) > 65535)
    return refuse(
      'an Expo Go origin names the development server with its port: exp://<host>:<port> (for example exp://192.168.1.5:8081)',
    );
  if (!CUSTOM_HOST_RE.test(host))
    return refuse('the host of an Expo Go origin is letters, digits, - . and _');
  return { ok: true, origin: `exp://${host}:${port}`, kind: 'custom_scheme' };
}

function checkCustomScheme(scheme: string, authority: string, rest: string): OriginCheck {
  if (authority.includes('*') || rest.includes('*')) {
    return refuse('a wildcard never covers a custom scheme; register <scheme>://<host> exactly');
  }
  if (rest !== '') return refuse(`a custom scheme origin has no path: register ${scheme}://<host> only`);
  if (scheme === EXPO_GO_SCHEME) return checkExpoGo(authority);
  if (authority.includes(':')) return refuse('a custom scheme origin has no port');
  const host = authority.toLowerCase();
  if (!CUSTOM_HOST_RE.test(host)) {
    return refuse('the host of a custom scheme is letters, digits, - . and _ (for example myapp://auth)');
  }
  return { ok: true, origin: `${scheme}://${host}`, kind: 'custom_scheme' };
}

function checkHttps(authority: string, rest: string): OriginCheck {
  const colon = authority.indexOf(':');
  const rawHost = (colon < 0 ? authority : authority.slice(0, colon)).toLowerCase();
  const port = colon < 0 ? undefined : authority.slice(colon + 1);
  if (port !== undefined && (!PORT_RE.test(port) || Number(port) > 65535)) {
    return refuse('the port must be a number from 1 to 65535');
  }
  const wildcard = rawHost.startsWith('*.');
  const host = wildcard ? rawHost.slice(2) : rawHost;
  if (host.includes('*'))
    return refuse('a wildcard may only be the whole leftmost label (https://*.example.com)');
  if (!DOMAIN_RE.test(host) || host.length > 253 || !readsAsDomain(host)) {
    return refuse('a verified link needs a domain name such as https://app.example.com (no IP address)');
  }
  if (wildcard && host.split('.').length < 2) return refuse('a wildcard needs a registrable domain below it');
  // Over a public suffix (the Public Suffix List, its private section included: github.io,
  // vercel.app), a wildcard would cover every other customer's site there.
  if (wildcard && getPublicSuffix(host, { allowPrivateDomains: true }) === host)
    return refuse(
      `a wildcard over ${host} would cover domains anyone can register (a public suffix); register your own domain, such as https://*.yourname.${host}`,
    );
  if (rest.includes('*'))
    return refuse('a wildcard may only be the whole leftmost label (https://*.example.com)');
  if (rest !== '' && rest !== '/' && !PATH_RE.test(rest)) {
    return refuse('the path may hold only unreserved characters, without empty, . or .. segments');
  }
  if (/\/\.{1,2}(?:\/|$)/.test(rest)) return refuse('the path may not hold . or .. segments');
  const portPart = port === undefined || port === '443' ? '' : `:${port}`;
  const path = rest === '/' ? '' : rest;
  return { ok: true, origin: `https://${wildcard ? '*.' : ''}${host}${portPart}${path}`, kind: 'https' };
}

/**
 * Whether a browser reads `host` as this very domain name: the WHATWG parser turns hosts whose
 * last label is a number (`1.2.3.4`, `0x7f.0.0.1`, `app.123`) into IPv4 addresses or refuses them.
 */
function readsAsDomain(host: string): boolean {
  const last = host.slice(host.lastIndexOf('.') + 1);
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(last)) return false;
  return hostnameOf(`https://${host}`) === host;
}

/** The hostname a WHATWG URL parser (as in browsers) reads in `url`, or null when it refuses it. */
function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

const LOOPBACK_RE = /^(127\.0\.0\.1|\[::1\]|localhost)(?::([1-9][0-9]{0,4}))?$/;

/** An http loopback origin for development; any port given is dropped, as every port matches. */
function checkLoopback(authority: string, rest: string): OriginCheck {
  const match = LOOPBACK_RE.exec(authority.toLowerCase());
  if (!match) {
    return refuse(
      'http is allowed only for the loopback origins http://127.0.0.1, http://[::1] and http://localhost; use an https verified link or a custom scheme',
    );
  }
  if (match[2] !== undefined && Number(match[2]) > 65535)
    return refuse('the port must be a number from 1 to 65535');
  if (rest !== '' && rest !== '/') return refuse('a loopback origin has no path (any path may follow it)');
  return { ok: true, origin: `http://${match[1]}`, kind: 'loopback' };
}

/** Checks one origin for registration; returns its normalised form or why it is refused. */
export function checkAllowedOrigin(raw: string): OriginCheck {
  if (raw.length === 0) return refuse('an origin may not be empty');
  if (raw.length > MAX_ORIGIN_LENGTH) return refuse(`an origin is at most ${MAX_ORIGIN_LENGTH} characters`);
  // Anything a parser could read two ways is refused outright rather than normalised.
  if (/[^\x21-\x7e]/.test(raw))
    return refuse('no spaces, control or non-ASCII characters (use the punycode form)');
  if (raw.includes('\\')) return refuse('backslashes are not allowed');
  if (raw.includes('%')) return refuse('percent-encoding is not allowed in an origin');
  const match = SCHEME_RE.exec(raw);
  if (!match) return refuse('an origin starts with a scheme: <scheme>://<host> or https://<domain>');
  const scheme = (match[1] as string).toLowerCase();
  if ((REFUSED_SCHEMES as readonly string[]).includes(scheme))
    return refuse(`the ${scheme} scheme is refused`);
  if (([...BROWSER_INTERNAL_SCHEMES, ...OS_HANDLED_SCHEMES] as readonly string[]).includes(scheme))
    return refuse(`the ${scheme} scheme is refused: the browser or the system handles it itself`);
  if (scheme !== 'http' && INSECURE_WEB_SCHEMES.includes(scheme)) {
    return refuse(`${scheme} is not allowed: use an https verified link or a custom scheme`);
  }
  const afterScheme = raw.slice(match[0].length);
  if (!afterScheme.startsWith('//')) return refuse(`${scheme}: must be followed by // and a host`);
  const hierarchical = afterScheme.slice(2);
  if (hierarchical.startsWith('/')) {
    return refuse('a host is required: three slashes (scheme:///path) are invalid');
  }
  if (/[?#]/.test(hierarchical)) return refuse('an origin has no query or fragment');
  const slash = hierarchical.indexOf('/');
  const authority = slash < 0 ? hierarchical : hierarchical.slice(0, slash);
  const rest = slash < 0 ? '' : hierarchical.slice(slash);
  if (authority.includes('@')) return refuse('userinfo (user@host) is not allowed');
  if (authority === '') return refuse('a host is required');
  if (scheme === 'http') return checkLoopback(authority, rest);
  return scheme === 'https' ? checkHttps(authority, rest) : checkCustomScheme(scheme, authority, rest);
}

/** Checks a whole list; returns the normalised, de-duplicated list or the first refusal with its index. */
export function checkAllowedOrigins(
  raws: readonly string[],
): { ok: true; origins: string[] } | { ok: false; index: number; reason: string } {
  if (raws.length > MAX_ORIGINS)
    return { ok: false, index: MAX_ORIGINS, reason: `at most ${MAX_ORIGINS} origins` };
  const origins: string[] = [];
  for (const [index, raw] of raws.entries()) {
    const check = checkAllowedOrigin(raw);
    if (!check.ok) return { ok: false, index, reason: check.reason };
    if (!origins.includes(check.origin)) origins.push(check.origin);
  }
  return { ok: true, origins };
}

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
