/**
 * Vitest fixtures for the auth service's tests: the Google/GitHub sign-in stand-in, a Worker
 * pointed at it and an auth app there, each started once per file on first use and stopped
 * after the file, plus the calls most of those tests make. A file writes
 * `oauthTest('…', async ({ worker, app, signIn }) => …)` instead of its own beforeAll/afterAll;
 * `oauthTestWith({ appOptions, workerEnv })` at the top of a file sets up its app or Worker
 * otherwise.
 */
import { expect, test } from 'vitest';
import { type ApiResponse, api } from './api';
import {
  type AuthAppOptions,
  asClient,
  createTestAuthApp,
  githubAccount,
  githubSignIn,
  googleClaims,
  newClient,
  oneTimeCode,
  pkcePair,
  type Session,
  startOAuthWorker,
  startSignIn,
  type TestAuthApp,
} from './oauth';
import { type GithubAccount, type ProviderStandIn, startProviderStandIn } from './provider-stand-in';
import type { ExtraWorker } from './worker';

type Post<T = Record<string, unknown>> = Promise<ApiResponse<T>>;

/** Who calls an auth route: the file's app unless `slug` names another, a fresh client unless `client` names one. */
export interface CallerOpts {
  client?: string;
  slug?: string;
}

/** A native sign-in with an ID token: POST /oauth/id-token, provider google unless `body` names one. */
export type SignIn = <T = Record<string, unknown>>(
  body: Record<string, unknown>,
  opts?: CallerOpts,
) => Post<T>;

/** POST /oauth/nonce for the file's app (or `opts.slug`) from a fresh client (or `opts.client`). */
export type NewNonce = (opts?: CallerOpts) => Post<{ nonce: string; expires_in: number }>;

/** POST /oauth/exchange of `body` for the file's app (or `opts.slug`) from a fresh client (or `opts.client`). */
export type Exchange = <T = Record<string, unknown>>(body: unknown, opts?: CallerOpts) => Post<T>;

/** Browser sign-ins to the file's app over HTTP. */
export interface BrowserStarts {
  /** GET /auth/{provider} (google unless named) of the file's app (or `slug`) with `query`. */
  start: (query: Record<string, string>, provider?: string, slug?: string) => Post;
  /** The query of a sign-in to `redirect_uri` with the file's S256 challenge. */
  withPkce: (redirect_uri: string) => Record<string, string>;
  /** helpers/oauth.ts's startSignIn on the file's Worker and app (or `slug`). */
  startSignIn: (
    provider: 'google' | 'github',
    query: Record<string, string>,
    slug?: string,
  ) => Promise<{ state: string; location: string }>;
  /** helpers/oauth.ts's githubSignIn on the file's stand-in, Worker and app (or `opts.slug`), as `opts.account` or a fresh one. */
  githubSignIn: (
    query: Record<string, string>,
    opts?: { account?: GithubAccount; slug?: string },
  ) => Promise<string>;
}

/** What the fixtures give a test. */
export interface OAuthFixtures {
  /** The options of the file's auth app (both providers, the default origins unless overridden). */
  appOptions: AuthAppOptions;
  /** Variables of the file's Worker on top of the stand-in's (none unless overridden). */
  workerEnv: Record<string, string>;
  standIn: ProviderStandIn;
  /** The file's Worker; `restart()` keeps its base URL, and the fixture stops whichever instance runs last. */
  worker: ExtraWorker;
  /** The file's auth app, made once. */
  app: TestAuthApp;
  /** Claims of a valid Google ID token for the file's app's web client (a fresh account unless `over` names one). */
  claims: (over?: Record<string, unknown>) => Record<string, unknown>;
  /** A sign-in to the file's app (or `opts.slug`) from a fresh client (or `opts.client`). */
  signIn: SignIn;
  newNonce: NewNonce;
  exchange: Exchange;
  /** POST /oauth/refresh of `token` to the file's app (or `slug`), naming no client. */
  refresh: (token: string, slug?: string) => Post;
  /** A session of a fresh GitHub user of the file's app (or `slug`): browser sign-in, then exchange, asserted 200. */
  session: (slug?: string) => Promise<Session>;
  /** The file's PKCE pair. */
  pkce: { verifier: string; challenge: string };
  browser: BrowserStarts;
}

/** `test` with the auth service's fixtures, each shared by the file's tests. */
export const oauthTest = test.extend<{ $file: OAuthFixtures }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures a fixture needs from this pattern
  appOptions: [async ({}, use) => use({}), { scope: 'file' }],
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures a fixture needs from this pattern
  workerEnv: [async ({}, use) => use({}), { scope: 'file' }],
  standIn: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures a fixture needs from this pattern
    async ({}, use) => {
      const standIn = await startProviderStandIn();
      await use(standIn);
      await standIn.close();
    },
    { scope: 'file' },
  ],
  worker: [
    async ({ standIn, workerEnv }, use) => {
      let latest = await startOAuthWorker(standIn, workerEnv);
      const restart = async () => {
        latest = await latest.restart();
        return latest;
      };
      await use({ ...latest, restart });
      await latest.stop();
    },
    { scope: 'file' },
  ],
  app: [
    async ({ worker, appOptions }, use) => use(await createTestAuthApp(worker.baseUrl, appOptions)),
    { scope: 'file' },
  ],
  claims: [async ({ app }, use) => use((over = {}) => googleClaims(app.google.web, over)), { scope: 'file' }],
  signIn: [
    async ({ worker, app }, use) =>
      use(<T>(body: Record<string, unknown>, opts: CallerOpts = {}) =>
        api(worker.baseUrl).post<T>(
          `/v1/${opts.slug ?? app.slug}/oauth/id-token`,
          { provider: 'google', ...body },
          { headers: asClient(opts.client ?? newClient()) },
        ),
      ),
    { scope: 'file' },
  ],
  newNonce: [
    async ({ worker, app }, use) =>
      use((opts = {}) =>
        api(worker.baseUrl).post<{ nonce: string; expires_in: number }>(
          `/v1/${opts.slug ?? app.slug}/oauth/nonce`,
          undefined,
          { headers: asClient(opts.client ?? newClient()) },
        ),
      ),
    { scope: 'file' },
  ],
  exchange: [
    async ({ worker, app }, use) =>
      use(<T>(body: unknown, opts: CallerOpts = {}) =>
        api(worker.baseUrl).post<T>(`/v1/${opts.slug ?? app.slug}/oauth/exchange`, body, {
          headers: asClient(opts.client ?? newClient()),
        }),
      ),
    { scope: 'file' },
  ],
  refresh: [
    async ({ worker, app }, use) =>
      use((token, slug = app.slug) =>
        api(worker.baseUrl).post(`/v1/${slug}/oauth/refresh`, { refresh_token: token }),
      ),
    { scope: 'file' },
  ],
  session: [
    async ({ standIn, worker, app, exchange }, use) =>
      use(async (slug = app.slug) => {
        const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, slug, githubAccount());
        const res = await exchange<Session>({ code, code_verifier: verifier }, { slug });
        expect(res.status, res.text).toBe(200);
        return res.body;
      }),
    { scope: 'file' },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures a fixture needs from this pattern
  pkce: [async ({}, use) => use(await pkcePair()), { scope: 'file' }],
  browser: [
    async ({ standIn, worker, app, pkce }, use) =>
      use({
        start: (query, provider = 'google', slug = app.slug) =>
          api(worker.baseUrl).get(`/v1/${slug}/auth/${provider}?${new URLSearchParams(query)}`),
        withPkce: (redirect_uri) => ({
          redirect_uri,
          code_challenge: pkce.challenge,
          code_challenge_method: 'S256',
        }),
        startSignIn: (provider, query, slug = app.slug) => startSignIn(worker.baseUrl, slug, provider, query),
        githubSignIn: (query, opts = {}) =>
          githubSignIn(worker.baseUrl, standIn, opts.slug ?? app.slug, query, opts.account),
      }),
    { scope: 'file' },
  ],
});

/**
 * `oauthTest` whose app is made with `appOptions` or whose Worker runs with `workerEnv`. A test of
 * its own (`extend`): `oauthTest.override` at a file's top level would replace the fixtures of
 * `oauthTest` itself, and a later file sharing the module (vitest.config.ts `isolate: false`)
 * would get them too.
 */
export function oauthTestWith(set: { appOptions?: AuthAppOptions; workerEnv?: Record<string, string> }) {
  return oauthTest.extend({
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures a fixture needs from this pattern
    appOptions: [async ({}, use) => use(set.appOptions ?? {}), { scope: 'file' }],
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures a fixture needs from this pattern
    workerEnv: [async ({}, use) => use(set.workerEnv ?? {}), { scope: 'file' }],
  });
}
