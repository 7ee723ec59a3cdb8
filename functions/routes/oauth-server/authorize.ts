/**
 * GET /{appSlug}/oauth/authorize (docs/contract.md §15): the standard authorization endpoint.
 * It starts the same browser sign-in as /auth/{provider} (routes/oauth/browser-start.ts: the
 * same counted start, server-side state, callback, one-time code and 120 s window), with
 * PKCE S256 required, the OpenID `nonce` and `scope` kept for the ID token, and RFC 9207's
 * `iss` on the way back. Until client_id and redirect_uri are known good nothing is redirected:
 * a browser sees a page naming the problem and its fix; afterwards errors go back to the
 * redirect_uri as RFC 6749 §4.1.2.1 has it. A client that asks for JSON gets every refusal as
 * JSON `{error, error_description, reason}` instead (the client package reads why a sign-in
 * could not start this way).
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { grantedScope } from '../../domain/oauth-scopes';
import { challengeProblem } from '../../domain/pkce';
import { matchRedirectUri } from '../../domain/redirect-uris';
import { z } from '../../lib/openapi';
import type { AuthAppRow } from '../../use-cases/sign-in/apps';
import { loadEnabledApp } from '../../use-cases/sign-in/apps';
import { issuerOf } from '../../use-cases/sign-in/auth-urls';
import { withParams } from '../../use-cases/sign-in/browser-sign-in';
import { allProviders, providerNamed } from '../../use-cases/sign-in/providers/provider-registry';
import { lookUpApp } from '../../use-cases/sign-in/rate-limit';
import {
  acceptsHtml,
  asBrowserProblem,
  BrowserProblem,
  type ProblemReason,
  problemPage,
  problems,
} from '../oauth/browser-problems';
import { type BrowserProvider, readyClient, startAtProvider } from '../oauth/browser-start';
import { AppParam, clientOf, oauthGroup } from '../oauth/oauth-shared';
import { requestContext } from '../shared';
import { chooserPage } from './chooser';

const text = (max: number) => z.string().max(max).optional();

const AuthorizeQuery = z.object({
  response_type: text(64).openapi({ description: '`code`' }),
  client_id: text(200).openapi({ description: "the auth app's app_id" }),
  redirect_uri: text(2048).openapi({ description: 'a URI of a registered origin (contract §9)' }),
  code_challenge: text(128).openapi({ description: 'BASE64URL(SHA-256(code_verifier)); required' }),
  code_challenge_method: text(16).openapi({ description: '`S256`; required' }),
  state: text(1024),
  scope: text(1024).openapi({
    description: 'openid email profile offline_access (default: openid email profile)',
  }),
  nonce: text(512).openapi({ description: 'put in the ID token' }),
  provider: text(40).openapi({ description: 'google, github or apple; without it a page to choose' }),
});

/** The RFC 6749 error code of a refusal answered as JSON. */
const ERROR_OF_REASON: Partial<Record<ProblemReason, string>> = {
  unknown_app: 'invalid_client',
  invalid_client: 'invalid_client',
  app_disabled: 'unauthorized_client',
};

/** A refusal before the redirect is trusted: a page for a browser, JSON for a client that asks for it. */
function refuse(c: Context<AppEnv>, problem: BrowserProblem): Response {
  if (!acceptsHtml(c)) {
    const error = ERROR_OF_REASON[problem.reason] ?? 'invalid_request';
    return c.json({ error, error_description: problem.message, reason: problem.reason }, problem.status);
  }
  return c.html(problemPage(problem).html, problem.status, { 'Cache-Control': 'no-store' });
}

export const authorizeEndpoint = oauthGroup();

authorizeEndpoint.openapi(
  createRoute({
    method: 'get',
    path: '/{appSlug}/oauth/authorize',
    tags: ['auth service'],
    summary: 'The standard authorization endpoint: a browser sign-in with PKCE S256 (OpenID Connect)',
    description:
      'Back to `redirect_uri?code&state&iss` (RFC 9207); the code is redeemed at `oauth/token` (or `oauth/exchange`) within 120 s. Errors go to the redirect_uri as RFC 6749 §4.1.2.1 once client_id and redirect_uri are good; before that a page says what is wrong.',
    request: { params: AppParam, query: AuthorizeQuery },
    responses: {
      200: {
        description: 'a page to choose a provider (no provider given)',
        content: { 'text/html': { schema: z.string() } },
      },
      302: { description: 'to the provider, or back to the redirect_uri with an error' },
      400: {
        description: 'client_id or redirect_uri not good: a page (or JSON) saying why',
        content: { 'text/html': { schema: z.string() } },
      },
      403: { description: 'the app is disabled', content: { 'text/html': { schema: z.string() } } },
      404: { description: 'unknown app', content: { 'text/html': { schema: z.string() } } },
      503: {
        description:
          "the app's sign-ins in progress are at their cap (SIGN_IN_PENDING_PER_APP); see Retry-After",
        content: { 'text/html': { schema: z.string() } },
      },
    },
  }),
  async (c) => {
    const { appSlug } = c.req.valid('param');
    const q = c.req.valid('query');
    const ctx = requestContext(c);
    let app: AuthAppRow;
    try {
      app = await lookUpApp(ctx, { client: clientOf(c), lookup: () => loadEnabledApp(ctx, appSlug) });
    } catch (err) {
      const problem = asBrowserProblem(err, appSlug);
      if (problem instanceof BrowserProblem) return refuse(c, problem);
      throw problem;
    }
    if (q.client_id !== appSlug)
      return refuse(
        c,
        new BrowserProblem(
          400,
          q.client_id === undefined ? 'client_id is required' : `client_id ${q.client_id} is not this app`,
          'invalid_client',
          `This issuer's client_id is "${appSlug}" (the auth app's app_id): give that to the OAuth library.`,
        ),
      );
    const redirectUri = q.redirect_uri;
    if (!redirectUri || !matchRedirectUri(redirectUri, app.allowedOrigins))
      return refuse(c, problems.redirectNotRegistered(appSlug));
    // From here the redirect_uri is the app's: errors go back to it.
    const back = (error: string, description: string, reason: ProblemReason): Response => {
      if (!acceptsHtml(c)) return c.json({ error, error_description: description, reason }, 400);
      c.header('Cache-Control', 'no-store');
      const params = {
        error,
        error_description: description,
        state: q.state,
        iss: issuerOf(ctx.config, appSlug),
      };
      return c.redirect(withParams(redirectUri, '?', params), 302);
    };
    if (q.response_type !== 'code')
      return back('unsupported_response_type', 'response_type must be code', 'invalid_request');
    let chosen: {
      provider: BrowserProvider;
      client: NonNullable<Awaited<ReturnType<typeof readyClient>>>;
    } | null = null;
    if (q.provider !== undefined) {
      const provider = providerNamed(q.provider);
      if (!provider?.browser)
        return back('invalid_request', `no browser sign-in with ${q.provider}`, 'unknown_provider');
      const client = await readyClient(c, app, provider);
      if (!client)
        return back(
          'invalid_request',
          problems.providerDisabled(appSlug, provider.name).message,
          'provider_disabled',
        );
      chosen = { provider: provider as BrowserProvider, client };
    }
    if (q.code_challenge === undefined)
      return back(
        'invalid_request',
        'code_challenge is required (PKCE, code_challenge_method=S256)',
        'pkce_required',
      );
    const pkce = challengeProblem(q.code_challenge, q.code_challenge_method);
    if (pkce) return back('invalid_request', pkce, 'pkce_required');
    if (!chosen) {
      const offered: BrowserProvider[] = [];
      for (const provider of allProviders())
        if (provider.browser && (await readyClient(c, app, provider)))
          offered.push(provider as BrowserProvider);
      if (offered.length === 0)
        return back('invalid_request', 'no sign-in provider is enabled for this app', 'provider_disabled');
      c.header('Cache-Control', 'no-store');
      return c.html(chooserPage(app, offered, new URL(c.req.url).searchParams), 200);
    }
    return startAtProvider(c, {
      app,
      provider: chosen.provider,
      client: chosen.client,
      record: {
        redirectUri,
        challenge: q.code_challenge,
        clientState: q.state,
        oidc: { scope: grantedScope(q.scope), ...(q.nonce === undefined ? {} : { nonce: q.nonce }) },
      },
    });
  },
);
