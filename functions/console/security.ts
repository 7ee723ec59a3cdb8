/**
 * What keeps the console safe in a browser: response headers (a strict Content-Security-Policy,
 * no framing, no caching of pages that may hold secrets), the session cookie's attributes, the
 * CSRF token of every form and the check that a return path stays on this site.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { isCrossSiteWrite } from '../lib/cross-site';
import { sha256Hex, timingSafeEqual } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { SESSION_COOKIE } from '../use-cases/caller/api-caller';
import { clearAccountCookie, setAccountCookie } from './viewer';

/**
 * Scripts and styles only from this origin (no inline script at all), no framing, forms post
 * here only; `formTarget` adds the one other origin a page's form may lead to (a browser checks
 * `form-action` on the redirect after the post too): the CLI's loopback callback.
 */
export function consoleCsp(formTarget?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    formTarget ? `form-action 'self' ${formTarget}` : "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

const CSP = consoleCsp();

/** Sets the console's security headers on every answer under /console. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  // A page that widened its form-action for one origin (consoleCsp) keeps its own policy.
  if (!c.res.headers.has('Content-Security-Policy')) c.res.headers.set('Content-Security-Policy', CSP);
  c.res.headers.set('X-Frame-Options', 'DENY');
  c.res.headers.set('X-Content-Type-Options', 'nosniff');
  // Not no-referrer: with it Chromium sends `Origin: null` on form posts, which the same-origin check refuses.
  c.res.headers.set('Referrer-Policy', 'same-origin');
  if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
};

/** Whether the console is served over plain http on a loopback host (local runs), where Secure cookies would be dropped. */
export function isLoopbackHttp(c: Context): boolean {
  const url = new URL(c.req.url);
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  return url.protocol === 'http:' && loopback;
}

/** Stores the dashboard session in `tether_session`, and the account's e-mail for the header beside it. */
export async function setSessionCookie(
  c: Context,
  token: string,
  expiresAt: Date,
  email: string,
): Promise<void> {
  setCookie(c, SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: !isLoopbackHttp(c),
    expires: expiresAt,
  });
  await setAccountCookie(c, token, email, expiresAt, !isLoopbackHttp(c));
}

/** The session cookie's value, if any. */
export const sessionCookie = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE);

/** Removes the session cookie. */
export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: !isLoopbackHttp(c), httpOnly: true, sameSite: 'Lax' });
  clearAccountCookie(c, !isLoopbackHttp(c));
}

/** The CSRF token of a session: derived from the session secret, so another site can neither read nor compute it. */
export function csrfToken(session: string): Promise<string> {
  return sha256Hex(`tether-console-csrf:${session}`);
}

/** Refuses a form post from another site (Origin / Sec-Fetch-Site) before anything is read. */
export function requireSameOrigin(c: Context, publicBaseUrl: string): void {
  if (isCrossSiteWrite(c.req.raw, publicBaseUrl)) {
    throw new ApiError('FORBIDDEN', 'a form of another site cannot change anything here');
  }
}

/** Refuses a form post whose `_csrf` field is not this session's token. */
export async function requireCsrf(session: string, given: string | undefined): Promise<void> {
  if (!given || !timingSafeEqual(given, await csrfToken(session))) {
    throw new ApiError(
      'FORBIDDEN',
      'the form is out of date or came from elsewhere; reload the page and try again',
    );
  }
}

/** A return path that stays on this site under /console, else the projects page. */
export function safeReturnPath(candidate: string | undefined): string {
  if (!candidate) return '/console';
  // Only same-origin relative paths: no scheme, no `//host`, no backslash tricks, no control characters.
  if (!candidate.startsWith('/console') || candidate.startsWith('//')) return '/console';
  if (candidate.includes('\\') || [...candidate].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\u007f')) {
    return '/console';
  }
  try {
    const url = new URL(candidate, 'http://console.invalid');
    if (url.origin !== 'http://console.invalid' || !url.pathname.startsWith('/console')) return '/console';
    return `${url.pathname}${url.search}`;
  } catch {
    return '/console';
  }
}
