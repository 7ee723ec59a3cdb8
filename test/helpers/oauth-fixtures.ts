/**
 * Vitest fixtures for the auth service's tests: the Google/GitHub sign-in stand-in, a Worker
 * pointed at it and an auth app there, each started once per file on first use and stopped
 * after the file, plus the calls most of those tests make. A file writes
 * `oauthTest('…', async ({ worker, app, signIn }) => …)` instead of its own beforeAll/afterAll.
 */
import { test } from 'vitest';
import { api } from './api';
import {
  asClient,
  createTestAuthApp,
  googleClaims,
  newClient,
  startOAuthWorker,
  type TestAuthApp,
} from './oauth';
import { type ProviderStandIn, startProviderStandIn } from './provider-stand-in';
import type { ExtraWorker } from './worker';

/** A native sign-in with an ID token: POST /oauth/id-token, provider google unless `body` names one. */
export type SignIn = (
  body: Record<string, unknown>,
  opts?: { client?: string; slug?: string },
) => ReturnType<ReturnType<typeof api>['post']>;

/** POST /oauth/nonce for the file's app (or `opts.slug`) from a fresh client (or `opts.client`). */
export type NewNonce = (opts?: {
  client?: string;
  slug?: string;
}) => Promise<
  Awaited<ReturnType<ReturnType<typeof api>['post']>> & { body: { nonce: string; expires_in: number } }
>;

/** What the fixtures give a test. */
export interface OAuthFixtures {
  standIn: ProviderStandIn;
  worker: ExtraWorker;
  /** The file's auth app, made once. */
  app: TestAuthApp;
  /** Claims of a valid Google ID token for the file's app's web client (a fresh account unless `over` names one). */
  claims: (over?: Record<string, unknown>) => Record<string, unknown>;
  /** A sign-in to the file's app (or `opts.slug`) from a fresh client (or `opts.client`). */
  signIn: SignIn;
  newNonce: NewNonce;
}

/** `test` with the auth service's fixtures, each shared by the file's tests. */
export const oauthTest = test.extend<{ $file: OAuthFixtures }>({
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
    async ({ standIn }, use) => {
      const worker = await startOAuthWorker(standIn);
      await use(worker);
      await worker.stop();
    },
    { scope: 'file' },
  ],
  app: [async ({ worker }, use) => use(await createTestAuthApp(worker.baseUrl)), { scope: 'file' }],
  claims: [async ({ app }, use) => use((over = {}) => googleClaims(app.google.web, over)), { scope: 'file' }],
  signIn: [
    async ({ worker, app }, use) =>
      use((body, opts = {}) =>
        api(worker.baseUrl).post(
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
});
