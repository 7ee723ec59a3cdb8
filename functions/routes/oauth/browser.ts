/**
 * The browser flow: /auth/{provider} sends the system browser to the provider with server-side,
 * single-use state bound to that browser's cookie (browser-binding.ts); the provider's callback identifies the user and returns to the app's
 * registered redirect_uri with a one-time code (PKCE), the tokens in the fragment (web, https
 * only), or error=<message>. A redirect_uri that is not registered is answered with JSON 400
 * and never redirected to.
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { challengeProblem } from '../../domain/pkce';
import { matchRedirectUri, mayUseFragment } from '../../domain/redirect-uris';
import { OAuthError } from '../../lib/oauth-error';
import { z } from '../../lib/openapi';
import { findAppBySlug, loadEnabledApp } from '../../use-cases/sign-in/apps';
import { finishSignIn } from '../../use-cases/sign-in/browser-sign-in';
import { peekState, takeState } from '../../use-cases/sign-in/one-time-codes';
import { providerNamed } from '../../use-cases/sign-in/providers/provider-registry';
import { lookUpApp } from '../../use-cases/sign-in/rate-limit';
import { requestContext } from '../shared';
import { startedInThisBrowser } from './browser-binding';
import { asBrowserProblem, problems } from './browser-problems';
import {
  type BrowserProvider,
  browserProvider,
  callbackUri,
  providerClient,
  readyClient,
  startAtProvider,
} from './browser-start';
import { AppParam, clientOf, OAuthErrorSchema, oauthGroup, oauthJson, regionOfRequest } from './oauth-shared';

const ProviderParam = AppParam.extend({
  provider: z
    .string()
    .max(40)
    .openapi({ description: 'a registered sign-in provider: google, github, apple' }),
});

export const browserRoutes = oauthGroup();

browserRoutes.openapi(
  createRoute({
    method: 'get',
    path: '/{appSlug}/auth/{provider}',
    tags: ['auth service'],
    summary: 'Start a sign-in in the system browser',
    description:
      'redirect_uri matches when its origin (scheme, host case aside, port) is a registered one, with any path and query after it (contract §9); registered loopback origins match on any port. Userinfo, a fragment or a host spelled otherwise are refused. 100 starts per client per 15 minutes.',
    request: {
      params: ProviderParam,
      query: z.object({
        redirect_uri: z.string().max(2048),
        code_challenge: z.string().max(128).optional(),
        code_challenge_method: z.string().max(16).optional(),
        state: z.string().max(512).optional(),
      }),
    },
    responses: {
      302: { description: 'to the provider' },
      400: oauthJson(
        OAuthErrorSchema,
        'redirect_uri not registered, bad PKCE parameters or provider not enabled',
      ),
      403: oauthJson(OAuthErrorSchema, 'app disabled'),
      404: oauthJson(OAuthErrorSchema, 'unknown app'),
      429: oauthJson(OAuthErrorSchema, 'too many sign-in starts from this client; see Retry-After'),
      503: oauthJson(
        OAuthErrorSchema,
        "the app's sign-ins in progress are at their cap (SIGN_IN_PENDING_PER_APP); see Retry-After",
      ),
    },
  }),
  async (c) => {
    const { appSlug, provider: name } = c.req.valid('param');
    const query = c.req.valid('query');
    if (!providerNamed(name)?.browser) throw problems.unknownProvider(name);
    const provider = browserProvider(name);
    // A client naming unknown apps is counted (429 past its limit), so starts cost no free reads.
    const ctx = requestContext(c);
    const app = await lookUpApp(ctx, {
      client: clientOf(c),
      lookup: () => loadEnabledApp(ctx, appSlug),
    }).catch((err: unknown) => {
      throw asBrowserProblem(err, appSlug);
    });
    if (!matchRedirectUri(query.redirect_uri, app.allowedOrigins))
      throw problems.redirectNotRegistered(appSlug);
    const pkce = challengeProblem(query.code_challenge, query.code_challenge_method);
    if (pkce) throw new OAuthError(400, pkce);
    if (query.code_challenge === undefined && !mayUseFragment(query.redirect_uri)) {
      throw new OAuthError(
        400,
        'a custom-scheme redirect_uri needs PKCE: send code_challenge and code_challenge_method=S256',
      );
    }
    const client = await readyClient(c, app, provider);
    if (!client) throw problems.providerDisabled(appSlug, provider.name);
    return startAtProvider(c, {
      app,
      provider,
      client,
      record: { redirectUri: query.redirect_uri, challenge: query.code_challenge, clientState: query.state },
    });
  },
);

const CallbackParams = z.object({
  state: z.string().max(512).optional(),
  code: z.string().max(2048).optional(),
  error: z.string().max(512).optional(),
  error_description: z.string().max(2048).optional(),
  /** Apple's first callback: the person's name and e-mail as JSON. */
  user: z.string().max(4096).optional(),
});

const callbackResponses = {
  302: { description: 'to the redirect_uri' },
  400: oauthJson(OAuthErrorSchema, 'unknown, used or expired state (never redirected)'),
  403: oauthJson(
    OAuthErrorSchema,
    'the sign-in was started in another browser (no tether_auth_state_… cookie of its state): refused, the state left unused; a page for a browser',
  ),
  404: oauthJson(OAuthErrorSchema, 'unknown app, or a provider that does not return this way'),
};

/**
 * Refuses (403, a page for a browser) a callback whose state is live but was started in another
 * browser; an unknown, used or expired state falls through to the 400 every callback gets.
 */
async function refuseOtherBrowser(
  ctx: ReturnType<typeof requestContext>,
  input: { slug: string; state: string; app: { id: string }; provider: BrowserProvider },
): Promise<void> {
  const pending = await peekState(ctx, { slug: input.slug, state: input.state });
  if (pending && pending.provider === input.provider.name && pending.appId === input.app.id)
    throw problems.otherBrowser(input.provider.title);
}

/** Finishes the sign-in a provider's callback (`method`, with `params`) returns to. */
async function callback(
  c: Context<AppEnv>,
  method: 'GET' | 'POST',
  appSlug: string,
  name: string,
  params: z.infer<typeof CallbackParams>,
) {
  const provider = browserProvider(name);
  if (provider.browser.callbackMethod !== method)
    throw new OAuthError(404, `${provider.title} returns by ${provider.browser.callbackMethod}`);
  // The app is read once, before any Durable Object is touched: a made-up app gets its 404
  // first. The sign-in's other metadata trip is its user and session (finishSignIn).
  const ctx = requestContext(c);
  const app = await findAppBySlug(ctx, appSlug);
  if (!app) throw new OAuthError(404, 'unknown app');
  const state = params.state ?? '';
  const binding = {
    state,
    callbackUri: callbackUri(c, appSlug, provider.name),
    returnsByPost: method === 'POST',
  };
  // Checked before the state is used up: a callback opened in another browser leaves it alone.
  const bound = state !== '' && (await startedInThisBrowser(c, binding));
  const record = bound ? await takeState(ctx, { slug: appSlug, state }) : null;
  if (!record || record.provider !== provider.name) {
    if (!bound && state !== '') await refuseOtherBrowser(ctx, { slug: appSlug, state, app, provider });
    throw new OAuthError(400, 'unknown, used or expired sign-in state');
  }
  if (!app.enabled) throw new OAuthError(400, 'this app can no longer sign in');
  // The origin list may have changed while the user was at the provider.
  if (app.id !== record.appId || !matchRedirectUri(record.redirectUri, app.allowedOrigins)) {
    throw new OAuthError(400, 'redirect_uri is no longer a registered origin of this app');
  }
  const location = await finishSignIn(ctx, {
    app,
    slug: appSlug,
    record,
    callbackUri: callbackUri(c, appSlug, provider.name),
    region: regionOfRequest(c),
    flow: provider.browser,
    params: Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >,
    client: () => providerClient(c, app, provider),
  });
  c.header('Cache-Control', 'no-store');
  return c.redirect(location, 302);
}

browserRoutes.openapi(
  createRoute({
    method: 'get',
    path: '/{appSlug}/auth/{provider}/callback',
    tags: ['auth service'],
    summary: "The provider's callback: back to the app with code=<one-time code> or error=<message>",
    request: { params: ProviderParam, query: CallbackParams },
    responses: callbackResponses,
  }),
  async (c) => {
    const { appSlug, provider } = c.req.valid('param');
    return callback(c, 'GET', appSlug, provider, c.req.valid('query'));
  },
);

browserRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/{appSlug}/auth/{provider}/callback',
    tags: ['auth service'],
    summary: "The callback of a provider that returns by form POST (Apple's response_mode=form_post)",
    description:
      'A form body, not JSON: the one exception to the auth service taking only application/json. The sign-in state is kept server side and single use; the start bound it to its browser with a SameSite=None cookie (over https) that this cross-site POST carries.',
    request: {
      params: ProviderParam,
      body: {
        content: { 'application/x-www-form-urlencoded': { schema: CallbackParams } },
        required: true,
      },
    },
    responses: callbackResponses,
  }),
  async (c) => {
    const { appSlug, provider } = c.req.valid('param');
    return callback(c, 'POST', appSlug, provider, c.req.valid('form'));
  },
);
