/**
 * Readable failures of the browser sign-in: a start or callback that cannot go back to the app
 * (an unknown or disabled app, a provider that is off, a redirect_uri that is not registered, a
 * used state, a callback opened in another browser than the one that started) shows the person a page naming the problem and its fix, never raw JSON. A client
 * that asks for JSON (no `text/html` in Accept) gets the same answer as before.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../app-env';
import { OAuthError } from '../../lib/oauth-error';

/** Why a browser sign-in cannot start, as a stable word (the page's `tether-error` meta, the client package's error code). */
export type ProblemReason =
  | 'unknown_app'
  | 'app_disabled'
  | 'redirect_uri_not_registered'
  | 'provider_disabled'
  | 'unknown_provider'
  | 'invalid_client'
  | 'pkce_required'
  | 'invalid_request'
  | 'rate_limited'
  | 'sign_in_expired'
  | 'other_browser';

/** A refusal of the browser flow with its reason and the fix, answered as before to JSON clients. */
export class BrowserProblem extends OAuthError {
  constructor(
    status: OAuthError['status'],
    message: string,
    readonly reason: ProblemReason,
    readonly fix: string,
  ) {
    super(status, message);
  }
}

/** The problems a browser sign-in's configuration can have, with what fixes each. */
export const problems = {
  unknownApp: (slug: string) =>
    new BrowserProblem(
      404,
      'unknown app',
      'unknown_app',
      `No auth app has the app_id "${slug}". Check the app_id in the sign-in link (the client's appId or client_id): the console lists a project's auth apps under Auth, and \`tether auth ls\` prints them.`,
    ),
  appDisabled: (slug: string) =>
    new BrowserProblem(
      403,
      'this app is disabled',
      'app_disabled',
      `The auth app "${slug}" is turned off. Enable it in the console (the app's Settings) or with PATCH /api/v1/projects/:id/auth-apps/${slug} {"enabled":true}.`,
    ),
  redirectNotRegistered: (slug: string) =>
    new BrowserProblem(
      400,
      'redirect_uri is not a registered origin of this app',
      'redirect_uri_not_registered',
      `Add the redirect's origin to the app's Allowed Origins: \`tether auth origins ${slug} --add <origin>\`, or in the console under Auth › ${slug} › Allowed Origins (Expo Go: exp://<host>:<port>; a development or standalone build: <scheme>://auth; the web: its https origin).`,
    ),
  providerDisabled: (slug: string, provider: string) =>
    new BrowserProblem(
      400,
      `provider ${provider} is not enabled for this app`,
      'provider_disabled',
      `Turn ${provider} on for "${slug}": \`tether auth provider ${slug} ${provider} --client-id … --client-secret … --enable\`, or in the console under Auth › ${slug} › Providers.`,
    ),
  otherBrowser: (providerTitle: string) =>
    new BrowserProblem(
      403,
      'this sign-in was started in another browser',
      'other_browser',
      `A ${providerTitle} sign-in finishes only in the browser that started it, so a sign-in link from someone else cannot sign you in to their account. Go back to the app and start the sign-in again here.`,
    ),
  unknownProvider: (provider: string) =>
    new BrowserProblem(
      404,
      `no browser sign-in with ${provider}`,
      'unknown_provider',
      'Sign in with one of the providers the app offers: google, github or apple.',
    ),
};

/** The OAuth refusals of the app lookup (404 unknown, 403 disabled) as browser problems. */
export function asBrowserProblem(err: unknown, slug: string): unknown {
  if (!(err instanceof OAuthError) || err instanceof BrowserProblem) return err;
  if (err.status === 404) return problems.unknownApp(slug);
  if (err.status === 403) return problems.appDisabled(slug);
  return err;
}

/** `text` safe inside HTML text and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A small self-contained page (no script, no outside resource). */
export function page(title: string, body: string, meta: Record<string, string> = {}): string {
  const metas = Object.entries(meta)
    .map(([name, content]) => `<meta name="${escapeHtml(name)}" content="${escapeHtml(content)}">`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${metas}<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.3rem}code{background:#f3f4f6;padding:0 .2em;border-radius:3px}.fix{border-left:3px solid #2f6feb;padding-left:.8rem}a.choice{display:block;margin:.6rem 0;padding:.7rem 1rem;border:1px solid #d0d7de;border-radius:6px;text-decoration:none;color:inherit}</style></head><body>${body}</body></html>`;
}

/** Inline `code` spans of a text written with backticks, escaped. */
const withCode = (text: string): string =>
  escapeHtml(text).replace(/`([^`]+)`/g, (_, inner: string) => `<code>${inner}</code>`);

/** The page of a refused browser sign-in. */
export function problemPage(err: OAuthError): { html: string; reason: ProblemReason } {
  const reason: ProblemReason =
    err instanceof BrowserProblem ? err.reason : err.status === 429 ? 'rate_limited' : 'invalid_request';
  const fix =
    err instanceof BrowserProblem
      ? err.fix
      : err.status === 429
        ? `Too many sign-ins from this network; try again in ${err.retryAfter ?? 60} seconds.`
        : "Go back to the app and start the sign-in again. If it keeps failing, tell the app's developer what this page says.";
  const html = page(
    "Sign-in can't continue",
    `<h1>Sign-in can't continue</h1><p><strong>${escapeHtml(err.message)}</strong></p><p class="fix">${withCode(fix)}</p><p><small>error: ${escapeHtml(reason)}</small></p>`,
    { 'tether-error': reason },
  );
  return { html, reason };
}

/** Whether the request comes from a browser page load (it accepts HTML). */
export const acceptsHtml = (c: Context): boolean => /\btext\/html\b/i.test(c.req.header('accept') ?? '');

/**
 * Renders a refused browser-flow request as a page for a browser; JSON clients keep their
 * answer. Headers already set (Retry-After, no-store) stay.
 */
export const readableForBrowsers: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!(c.error instanceof OAuthError) || !acceptsHtml(c)) return;
  const { html } = problemPage(c.error);
  const retryAfter = c.res.headers.get('Retry-After');
  c.res = new Response(html, {
    status: c.error.status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      ...(retryAfter === null ? {} : { 'Retry-After': retryAfter }),
    },
  });
};
