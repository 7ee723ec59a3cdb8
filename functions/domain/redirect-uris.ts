/**
 * Allowed origins of an auth app and the exact matching of a redirect_uri against them.
 *
 * Registration accepts two forms: a custom scheme `<scheme>://<host>` (no path, port, query or
 * wildcard) and an https origin of a verified-link domain, optionally with a path and optionally
 * with a `*.` leftmost label. Matching is string equality against the normalised entries, so
 * userinfo tricks, backslashes, percent-encoding, case changes, extra paths and lookalike hosts
 * can never match: nothing is parsed leniently on the way to a redirect.
 */

/** Schemes that are never an allowed origin, whatever follows them. */
export const REFUSED_SCHEMES = ['file', 'javascript', 'data', 'blob', 'about', 'vbscript', 'ftp'] as const;

/** Web schemes other than https: a plain-text redirect would leak the code or the tokens. */
const INSECURE_WEB_SCHEMES = ['http', 'ws', 'wss'];

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
export type OriginKind = 'custom_scheme' | 'https';

/** The outcome of checking one origin for registration. */
export type OriginCheck = { ok: true; origin: string; kind: OriginKind } | { ok: false; reason: string };

const refuse = (reason: string): OriginCheck => ({ ok: false, reason });

function checkCustomScheme(scheme: string, authority: string, rest: string): OriginCheck {
  if (authority.includes('*') || rest.includes('*')) {
    return refuse('a wildcard never covers a custom scheme; register <scheme>://<host> exactly');
  }
  if (rest !== '') return refuse(`a custom scheme origin has no path: register ${scheme}://<host> only`);
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
  if (!DOMAIN_RE.test(host) || host.length > 253 || /^[0-9.]+$/.test(host)) {
    return refuse('a verified link needs a domain name such as https://app.example.com (no IP address)');
  }
  if (wildcard && host.split('.').length < 2) return refuse('a wildcard needs a registrable domain below it');
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
  if (INSECURE_WEB_SCHEMES.includes(scheme)) {
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

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether an https entry names an origin only (no path), so `entry/` is the same URL. */
function hasNoPath(entry: string): boolean {
  return entry.indexOf('/', 'https://'.length) < 0;
}

function matchesEntry(uri: string, entry: string): boolean {
  const trailing = entry.startsWith('https://') && hasNoPath(entry) ? '/?' : '';
  if (!entry.startsWith('https://*.')) return uri === entry || (trailing !== '' && uri === `${entry}/`);
  // A wildcard entry matches by pattern only, so the literal `*` host never matches it.
  const below = entry.slice('https://*.'.length);
  return new RegExp(`^https://${LABEL}\\.${escapeRegExp(below)}${trailing}$`).test(uri);
}

/**
 * The registered origin `redirectUri` matches exactly, or null. The only equivalence allowed is
 * the empty path of an https origin written as `/`; a wildcard entry stands for exactly one
 * DNS label and never for a custom scheme (registration refuses those).
 */
export function matchRedirectUri(redirectUri: string, registered: readonly string[]): string | null {
  if (redirectUri.length === 0 || redirectUri.length > MAX_ORIGIN_LENGTH) return null;
  if (/[^\x21-\x7e]/.test(redirectUri)) return null;
  return registered.find((entry) => matchesEntry(redirectUri, entry)) ?? null;
}

/** Whether a redirect target is an https URL (the only kind the web fragment flow may send tokens to). */
export const isHttpsRedirect = (redirectUri: string): boolean => redirectUri.startsWith('https://');
