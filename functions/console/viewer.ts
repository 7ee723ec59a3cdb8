/**
 * Who the signed-in page is for, as the header shows it: the account's e-mail, kept since
 * sign-in in the `tether_account` cookie and honoured only beside the session it was set with
 * (its tag is derived from the session secret), so a page costs no read to name its person.
 * The session middleware opens the scope; the layout reads it while the page renders.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sha256Hex, timingSafeEqual } from '../lib/crypto';

const ACCOUNT_COOKIE = 'tether_account';
const current = new AsyncLocalStorage<{ email: string | null }>();

const tagOf = async (session: string, email: string) =>
  (await sha256Hex(`tether-console-account:${session}:${email}`)).slice(0, 32);

/** Keeps `email` for the header of the pages `session` signs in to. */
export async function setAccountCookie(
  c: Context,
  session: string,
  email: string,
  expiresAt: Date,
  secure: boolean,
): Promise<void> {
  setCookie(c, ACCOUNT_COOKIE, `${encodeURIComponent(email)}.${await tagOf(session, email)}`, {
    path: '/console',
    httpOnly: true,
    sameSite: 'Lax',
    secure,
    expires: expiresAt,
  });
}

/** Removes the header's e-mail (signing out). */
export function clearAccountCookie(c: Context, secure: boolean): void {
  deleteCookie(c, ACCOUNT_COOKIE, { path: '/console', secure, httpOnly: true, sameSite: 'Lax' });
}

/** The e-mail the cookie keeps for `session`, or null when it is absent or was set for another session. */
export async function accountEmailOf(c: Context, session: string): Promise<string | null> {
  const raw = getCookie(c, ACCOUNT_COOKIE) ?? '';
  const dot = raw.lastIndexOf('.');
  if (dot <= 0) return null;
  try {
    const email = decodeURIComponent(raw.slice(0, dot));
    return timingSafeEqual(raw.slice(dot + 1), await tagOf(session, email)) ? email : null;
  } catch {
    return null;
  }
}

/** Runs the rest of a signed-in request with `email` as the page's person. */
export const withViewer = <T>(email: string | null, work: () => T): T => current.run({ email }, work);

/** The signed-in person's e-mail while a page renders, if known. */
export const viewerEmail = (): string | null => current.getStore()?.email ?? null;
