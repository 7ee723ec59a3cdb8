/**
 * Signing in and out. `/console/login` trades an account token for a dashboard session (the
 * API's own POST /account/sessions) kept in the `tether_session` cookie; `Sign out` ends that
 * session on the server. Every other console page needs the session and leads back to itself
 * after signing in.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { SESSION_TTL_MS } from '../use-cases/accounts';
import { ApiFailure, ConsoleApi, type Fetcher } from './console-api';
import type { ConsoleContext, ConsoleEnv } from './console-env';
import { takeFlash } from './flash';
import { Layout } from './layout';
import { consoleProviders, ProviderButtons, providerSignInRoutes } from './provider-sign-in';
import {
  clearSessionCookie,
  csrfToken,
  isLoopbackHttp,
  requireCsrf,
  requireSameOrigin,
  safeReturnPath,
  sessionCookie,
  setSessionCookie,
} from './security';
import { accountEmailOf, setAccountCookie, withViewer } from './viewer';

function LoginPage({
  next,
  error,
  providers,
}: {
  next: string;
  error?: string;
  providers: Array<{ name: string; title: string }>;
}) {
  return (
    <Layout title="Sign in" flash={error ? { kind: 'error', text: error } : undefined}>
      <section class="card">
        <ProviderButtons providers={providers} next={next} />
        <form method="post" action="/console/login" class="stack">
          <input type="hidden" name="next" value={next} />
          <label for="token">Account token</label>
          <input
            id="token"
            type="password"
            name="token"
            required
            autocomplete="off"
            spellcheck={false}
            aria-describedby="token-hint"
          />
          <p id="token-hint" class="hint">
            An account token (tth_at_…), as the operator handed it to you.
          </p>
          <div>
            <button type="submit">Sign in</button>
          </div>
        </form>
      </section>
    </Layout>
  );
}

/** Where a page without a session sends the browser: the login page, remembering the way back. */
export function loginRedirect(c: ConsoleContext): Response {
  const url = new URL(c.req.url);
  const back = c.req.method === 'GET' ? `${url.pathname}${url.search}` : url.pathname;
  const next = safeReturnPath(back);
  return c.redirect(
    next === '/console' ? '/console/login' : `/console/login?next=${encodeURIComponent(next)}`,
    303,
  );
}

/** The login and logout routes. */
export function sessionRoutes(fetcher: Fetcher): Hono<ConsoleEnv> {
  const routes = new Hono<ConsoleEnv>();

  routes.get('/login', (c) =>
    c.html(<LoginPage next={safeReturnPath(c.req.query('next'))} providers={consoleProviders(c)} />),
  );
  routes.route(
    '/',
    providerSignInRoutes((c, next, message) =>
      c.html(<LoginPage next={next} error={message} providers={consoleProviders(c)} />, 403),
    ),
  );

  routes.post('/login', async (c) => {
    requireSameOrigin(c, c.get('config').PUBLIC_BASE_URL);
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const next = safeReturnPath(typeof form.next === 'string' ? form.next : undefined);
    try {
      const session = await ConsoleApi.of(c, fetcher, token).post<{ token: string; expires_at: string }>(
        '/account/sessions',
      );
      const me = await ConsoleApi.of(c, fetcher, session.token).get<{ email: string }>('/account');
      await setSessionCookie(c, session.token, new Date(session.expires_at), me.email);
      return c.redirect(next, 303);
    } catch (err) {
      if (!(err instanceof ApiFailure) || err.status >= 500) throw err;
      // One answer for every refused token, so the form does not tell a live session or key
      // from a token that does not exist.
      const error = 'That token was not accepted. Sign in with a live account token (tth_at_…).';
      return c.html(<LoginPage next={next} error={error} providers={consoleProviders(c)} />, 401);
    }
  });

  routes.post('/logout', async (c) => {
    requireSameOrigin(c, c.get('config').PUBLIC_BASE_URL);
    const session = sessionCookie(c);
    if (session) {
      const form = await c.req.parseBody();
      await requireCsrf(session, typeof form._csrf === 'string' ? form._csrf : undefined);
      try {
        await ConsoleApi.of(c, fetcher, session).delete('/account/session');
      } catch (err) {
        // An expired or already revoked session is as signed out as it gets.
        if (!(err instanceof ApiFailure) || err.status !== 401) throw err;
      }
    }
    clearSessionCookie(c);
    return c.redirect('/console/login', 303);
  });

  return routes;
}

/** Every page after this needs a session: sets the API client, the CSRF token and the flash; checks form posts. */
export function requireSession(fetcher: Fetcher): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const session = sessionCookie(c);
    if (!session) return loginRedirect(c);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      requireSameOrigin(c, c.get('config').PUBLIC_BASE_URL);
      const form = await c.req.parseBody();
      await requireCsrf(session, typeof form._csrf === 'string' ? form._csrf : undefined);
    } else {
      c.set('flash', takeFlash(c));
    }
    c.set('session', session);
    c.set('csrf', await csrfToken(session));
    const api = ConsoleApi.of(c, fetcher, session);
    c.set('api', api);
    return withViewer((await accountEmailOf(c, session)) ?? (await rememberEmail(c, api, session)), next);
  };
}

/**
 * The header's e-mail for a session that came without it (made by POST /account/sessions and
 * set as the cookie by a script, or opened before the header named its person): read once from
 * the account and kept beside the session, so later pages cost no read. Null when the read fails
 * (the page itself then answers for the session).
 */
async function rememberEmail(
  c: Context<ConsoleEnv>,
  api: ConsoleApi,
  session: string,
): Promise<string | null> {
  try {
    const { email } = await api.get<{ email: string }>('/account');
    await setAccountCookie(c, session, email, new Date(Date.now() + SESSION_TTL_MS), !isLoopbackHttp(c));
    return email;
  } catch {
    return null;
  }
}
