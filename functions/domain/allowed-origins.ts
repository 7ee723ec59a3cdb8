/**
 * The registration of an auth app's allowed origins (contract §9): each origin checked and
 * normalised, or refused with the reason. Matching a redirect_uri against them is
 * redirect-uris.ts. Kept apart because the public-suffix check loads the Public Suffix List
 * (tldts), which only registration needs: the sign-in routes never load it.
 */

import { getPublicSuffix } from 'tldts';
import { LABEL, MAX_ORIGIN_LENGTH } from './redirect-uris';
import { BROWSER_INTERNAL_SCHEMES, OS_HANDLED_SCHEMES, REFUSED_SCHEMES } from './refused-schemes';

/** Web schemes other than https: a plain-text redirect would leak the code or the tokens. */
const INSECURE_WEB_SCHEMES = ['http', 'ws', 'wss'];

/** At most this many origins per app, each at most MAX_ORIGIN_LENGTH long. */
export const MAX_ORIGINS = 50;

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const CUSTOM_HOST_RE = /^[a-z0-9](?:[a-z0-9._-]{0,251}[a-z0-9])?$/;
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
