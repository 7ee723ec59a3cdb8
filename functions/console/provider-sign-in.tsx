/**
 * "Continue with GitHub / Google" on the console's sign-in page: the provider modules of the
 * auth service (use-cases/sign-in/providers) drive the browser flow with the console's own OAuth
 * client (CONSOLE_<PROVIDER>_CLIENT_ID/_SECRET). A start keeps nothing on the server: our PKCE
 * verifier, nonce and the state's hash travel encrypted (ENCRYPTION_KEYS, AES-GCM) in a cookie
 * of the browser that started, so however many starts anyone makes no storage grows, and a
 * callback link opened in another browser (without that cookie) signs nobody in. The cookie is
 * cleared at the callback, so a callback replayed in the same browser is refused too.
 */
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sha256Hex, timingSafeEqual } from '../lib/crypto';
import { randomToken } from '../lib/ids';
import { log } from '../lib/logger';
import { signInWithProvider } from '../use-cases/console-sign-in';
import { ProviderFailure } from '../use-cases/sign-in/provider-failure';
import { allProviders, providerNamed } from '../use-cases/sign-in/providers/provider-registry';
import type { ConsoleContext, ConsoleEnv } from './console-env';
import { safeReturnPath, setSessionCookie } from './security';

/** How long a started sign-in may take at the provider. */
const STATE_TTL_MS = 10 * 60 * 1000;
/** The cookie that binds a started sign-in to this browser. */
const BINDING_COOKIE = 'tether_signin';
/** What the cookie's plaintext says it is, so no other ciphertext of the keyring passes for one. */
const PURPOSE = 'console-sign-in';
/** The longest return path a start carries (a cookie holds about 4 KB). */
const MAX_NEXT = 1024;

/** What a started sign-in carries in its cookie until its callback. */
interface StartedSignIn {
  purpose: typeof PURPOSE;
  provider: string;
  verifier: string;
  nonce: string;
  next: string;
  /** SHA-256 of the state sent to the provider. */
  state: string;
  expiresAt: number;
}

/** The started sign-in a cookie carries, or undefined when it is missing, forged, expired or another's. */
async function startedIn(
  c: ConsoleContext,
  cookie: string | undefined,
  now: number,
): Promise<StartedSignIn | undefined> {
  if (!cookie) return undefined;
  try {
    const record = JSON.parse(await c.get('config').keyring.decrypt(cookie)) as StartedSignIn;
    return record.purpose === PURPOSE && record.expiresAt > now ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The providers the console offers: those with a browser flow and a console client configured. */
export function consoleProviders(c: ConsoleContext): Array<{ name: string; title: string }> {
  const clients = c.get('config').consoleClients;
  return allProviders()
    .filter((p) => p.browser && clients[p.name])
    .map((p) => ({ name: p.name, title: p.title }));
}

/**
 * The buttons of the sign-in page. Links, not forms: the console's CSP allows forms to post only
 * here, and a browser applies that to the redirect to the provider too. Starting a sign-in
 * changes nothing; the callback is bound to the browser that started it.
 */
export function ProviderButtons(props: { providers: Array<{ name: string; title: string }>; next: string }) {
  if (props.providers.length === 0) return null;
  return (
    <ul class="stack providers">
      {props.providers.map((p) => (
        <li>
          {/* biome-ignore lint/a11y/useSemanticElements: a link announced as the button the contract names; a form could not reach the provider under the CSP's form-action */}
          <a
            class="button"
            role="button"
            href={`/console/login/${p.name}?next=${encodeURIComponent(props.next)}`}
          >
            {`Continue with ${p.title}`}
          </a>
        </li>
      ))}
    </ul>
  );
}

const callbackUri = (c: ConsoleContext, provider: string) =>
  `${c.get('config').PUBLIC_BASE_URL.replace(/\/$/, '')}/console/login/${provider}/callback`;

const loopbackHttp = (c: ConsoleContext) => new URL(c.req.url).protocol === 'http:';

/** The routes of the provider sign-in; `refused` renders the sign-in page with a message. */
export function providerSignInRoutes(
  refused: (c: ConsoleContext, next: string, message: string) => Response | Promise<Response>,
): Hono<ConsoleEnv> {
  const routes = new Hono<ConsoleEnv>();

  routes.get('/login/:provider{[a-z]+}', async (c) => {
    const name = c.req.param('provider');
    const provider = providerNamed(name);
    const client = c.get('config').consoleClients[name];
    if (!provider?.browser || !client) return c.notFound();
    const asked = safeReturnPath(c.req.query('next'));
    const state = randomToken();
    const record: StartedSignIn = {
      purpose: PURPOSE,
      provider: name,
      verifier: randomToken(48),
      nonce: randomToken(),
      next: asked.length > MAX_NEXT ? '/console' : asked,
      state: await sha256Hex(state),
      expiresAt: c.get('ctx').clock.now().getTime() + STATE_TTL_MS,
    };
    const sealed = await c.get('config').keyring.encrypt(JSON.stringify(record));
    setCookie(c, BINDING_COOKIE, sealed, {
      path: '/console/login',
      httpOnly: true,
      sameSite: 'Lax',
      secure: !loopbackHttp(c),
      maxAge: STATE_TTL_MS / 1000,
    });
    const url = await provider.browser.authorizeUrl(c.get('config'), {
      settings: { enabled: true, client_id: client.clientId },
      callbackUri: callbackUri(c, name),
      state,
      verifier: record.verifier,
      ...(provider.browser.sendsNonce ? { nonce: record.nonce } : {}),
    });
    return c.redirect(url, 303);
  });

  routes.get('/login/:provider{[a-z]+}/callback', async (c) => {
    const name = c.req.param('provider');
    const provider = providerNamed(name);
    const client = c.get('config').consoleClients[name];
    if (!provider?.browser || !client) return c.notFound();
    const state = c.req.query('state') ?? '';
    const cookie = getCookie(c, BINDING_COOKIE);
    deleteCookie(c, BINDING_COOKIE, {
      path: '/console/login',
      secure: !loopbackHttp(c),
      httpOnly: true,
      sameSite: 'Lax',
    });
    const record = await startedIn(c, cookie, c.get('ctx').clock.now().getTime());
    if (
      !record ||
      record.provider !== name ||
      !state ||
      !timingSafeEqual(record.state, await sha256Hex(state))
    ) {
      return refused(c, '/console', 'That sign-in expired or was started in another browser; start again.');
    }
    const error = c.req.query('error');
    if (error)
      return refused(c, record.next, `${provider.title} did not sign you in (${error.slice(0, 100)}).`);
    let who: Awaited<ReturnType<typeof provider.browser.identify>>;
    try {
      who = await provider.browser.identify(c.get('config'), {
        settings: { enabled: true, client_id: client.clientId },
        secret: client.clientSecret,
        code: c.req.query('code') ?? '',
        callbackUri: callbackUri(c, name),
        verifier: record.verifier,
        nonce: provider.browser.sendsNonce ? record.nonce : '',
        params: c.req.query(),
      });
    } catch (err) {
      if (!(err instanceof ProviderFailure)) throw err;
      log.warn('console sign-in: the provider refused', { provider: name, reason: err.message });
      return refused(c, record.next, `${provider.title} sign-in failed: ${err.message}`);
    }
    const ip = c.req.header(c.get('config').CLIENT_IP_HEADER);
    const outcome = await signInWithProvider(c.get('ctx'), { who, provider: name, ip });
    if (!outcome.ok) {
      return refused(
        c,
        record.next,
        outcome.reason === 'unverified'
          ? `${provider.title} does not vouch for ${who.email}: verify the address there first.`
          : `There is no Tether account for ${who.email}, and signing up needs an invitation. Ask a project admin to invite this address.`,
      );
    }
    await setSessionCookie(c, outcome.session.token, outcome.session.expiresAt, outcome.email);
    return c.redirect(record.next, 303);
  });

  return routes;
}
