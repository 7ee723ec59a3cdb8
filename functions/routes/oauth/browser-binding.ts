/**
 * Binds a browser sign-in to the browser that started it (docs/security.md): every start (the
 * mobile flow's /auth/{provider} and the standard /oauth/authorize) sets a cookie named for its
 * state, scoped to the provider's callback path, and the callback finishes only a state whose
 * cookie this browser sends. A callback link captured from someone's sign-in and opened in
 * another browser is refused without touching the state, so it can still finish where it began.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppEnv } from '../../app-env';
import { sha256Base64url, timingSafeEqual } from '../../lib/crypto';
import { STATE_TTL_MS } from '../../use-cases/sign-in/one-time-codes';

/** The name of every binding cookie starts so: `tether_auth_state_<12 characters of the state's hash>`. */
export const BINDING_COOKIE_PREFIX = 'tether_auth_state_';

/** The binding of `state`: its cookie's name and value. */
async function bindingOf(state: string): Promise<{ name: string; value: string }> {
  const value = await sha256Base64url(`tether-auth-state:${state}`);
  return { name: `${BINDING_COOKIE_PREFIX}${value.slice(0, 12)}`, value };
}

/**
 * The cookie's attributes: the callback's path only, HttpOnly, Secure over https. SameSite=Lax
 * lets a provider's redirect (a top-level GET) carry it; a provider that returns by a form POST
 * from its own site (Apple) needs SameSite=None, which browsers take only with Secure (a local
 * http stack runs the provider stand-in on the same site, where Lax reaches the POST too).
 */
function attributes(callbackUri: string, returnsByPost: boolean) {
  const url = new URL(callbackUri);
  const secure = url.protocol === 'https:';
  return {
    path: url.pathname,
    httpOnly: true,
    secure,
    sameSite: returnsByPost && secure ? ('None' as const) : ('Lax' as const),
  };
}

/** Sets the cookie that binds `state` to this browser until the sign-in's state expires. */
export async function bindToBrowser(
  c: Context<AppEnv>,
  input: { state: string; callbackUri: string; returnsByPost: boolean },
): Promise<void> {
  const { name, value } = await bindingOf(input.state);
  setCookie(c, name, value, {
    ...attributes(input.callbackUri, input.returnsByPost),
    maxAge: STATE_TTL_MS / 1000,
  });
}

/**
 * Whether this browser started the sign-in of `state` (it sends the state's cookie); when it
 * did, the cookie is cleared, as the state is about to be used up.
 */
export async function startedInThisBrowser(
  c: Context<AppEnv>,
  input: { state: string; callbackUri: string; returnsByPost: boolean },
): Promise<boolean> {
  const { name, value } = await bindingOf(input.state);
  const sent = getCookie(c, name);
  if (sent === undefined || !timingSafeEqual(sent, value)) return false;
  deleteCookie(c, name, attributes(input.callbackUri, input.returnsByPost));
  return true;
}
