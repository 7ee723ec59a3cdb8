/**
 * Post/redirect/get: a form's outcome (done, or refused with the API's reason) travels to the
 * next page in a short-lived cookie, never in the URL, and is shown once.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { isLoopbackHttp } from './security';

const FLASH_COOKIE = 'tether_flash';

/** What the next page says about the last form. `form` names the form a refusal belongs to. */
export interface Flash {
  kind: 'notice' | 'error';
  text: string;
  form?: string;
}

/** Answers a form post with a 303 to `to`, carrying `flash`. */
export function redirectWith(c: Context, to: string, flash?: Flash): Response {
  if (flash) {
    setCookie(c, FLASH_COOKIE, encodeURIComponent(JSON.stringify(flash)).slice(0, 3000), {
      path: '/console',
      httpOnly: true,
      // Secure wherever the console is served over https (plain http only on a loopback host).
      secure: !isLoopbackHttp(c),
      sameSite: 'Lax',
      maxAge: 60,
    });
  }
  return c.redirect(to, 303);
}

/** The flash the previous form left, removed as it is read. */
export function takeFlash(c: Context): Flash | undefined {
  const raw = getCookie(c, FLASH_COOKIE);
  if (!raw) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: '/console' });
  try {
    const parsed = JSON.parse(decodeURIComponent(raw)) as Partial<Flash>;
    if ((parsed.kind === 'notice' || parsed.kind === 'error') && typeof parsed.text === 'string') {
      return {
        kind: parsed.kind,
        text: parsed.text,
        form: typeof parsed.form === 'string' ? parsed.form : undefined,
      };
    }
  } catch {
    // A cookie that is not ours says nothing.
  }
  return undefined;
}
