/**
 * End to end: a real OpenID provider (`oidc-provider`) stands in for Google, headless Chromium
 * walks the whole browser sign-in, and the app's custom-scheme redirect is intercepted the way
 * a mobile OS hands it to the app. The PKCE verifier and challenge come from oauth4webapi; the
 * code is then exchanged for a session.
 */
import { createServer, type Server } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import Provider from 'oidc-provider';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api } from '../helpers/api';
import { launchChromiumContext } from '../helpers/browser';
import { asClient, createTestAuthApp, paramsOf, type TestAuthApp } from '../helpers/oauth';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

let issuer: string;
let oidcServer: Server;
let worker: ExtraWorker;
let app: TestAuthApp;
let browser: BrowserContext;
let closeBrowser: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const oidcPort = await freePort();
  issuer = `http://127.0.0.1:${oidcPort}`;
  worker = await startExtraWorker({
    GOOGLE_AUTHORIZE_URL: `${issuer}/auth`,
    GOOGLE_TOKEN_URL: `${issuer}/token`,
    GOOGLE_JWKS_URL: `${issuer}/jwks`,
    GOOGLE_ISSUERS: issuer,
    CLIENT_IP_HEADER: 'X-Test-Client-IP',
  });
  app = await createTestAuthApp(worker.baseUrl, { origins: ['com.example.mobile://auth'] });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: app.google.web,
        client_secret: 'google-secret',
        redirect_uris: [`${worker.baseUrl}/v1/${app.slug}/auth/google/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
    // Google puts e-mail and profile claims in the ID token itself.
    conformIdTokenClaims: false,
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({
        sub: id,
        email: `${id}@example.test`,
        email_verified: true,
        name: `User ${id}`,
      }),
    }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['e2e-cookie-key-one-two-three'] },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
  });
  oidcServer = createServer(provider.callback());
  await new Promise<void>((resolve) => oidcServer.listen(oidcPort, '127.0.0.1', resolve));

  const launched = await launchChromiumContext();
  browser = launched.context;
  closeBrowser = launched.close;
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await new Promise((resolve) => oidcServer?.close(resolve));
  oidcServer?.closeAllConnections();
  await worker?.stop();
});

describe('mobile browser flow', () => {
  it('signs in through the provider in Chromium and hands the app a one-time code it exchanges', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const clientState = oauth.generateRandomState();
    const page = await browser.newPage();
    const callbackPrefix = `${worker.baseUrl}/v1/${app.slug}/auth/google/callback`;

    // Chromium cannot follow a custom scheme; on a phone the OS hands that redirect to the app.
    // The test plays the OS: it intercepts the callback, reads its Location and ends the page.
    let handOff: (value: { status: number; location: string }) => void = () => undefined;
    const appRedirect = new Promise<{ status: number; location: string }>((resolve, reject) => {
      handOff = resolve;
      setTimeout(() => reject(new Error('the callback never redirected to the app')), 30_000).unref();
    });
    // Paused by the browser itself once the callback's response headers arrive (CDP Fetch).
    const cdp = await browser.newCDPSession(page);
    cdp.on('Fetch.requestPaused', (event) => {
      const location = event.responseHeaders?.find((h) => h.name.toLowerCase() === 'location')?.value ?? '';
      handOff({ status: event.responseStatusCode ?? 0, location });
      void cdp.send('Fetch.fulfillRequest', {
        requestId: event.requestId,
        responseCode: 200,
        body: Buffer.from('Returned to the app.').toString('base64'),
      });
    });
    await cdp.send('Fetch.enable', {
      patterns: [{ urlPattern: `${callbackPrefix}?*`, requestStage: 'Response' }],
    });

    const start = new URL(`${worker.baseUrl}/v1/${app.slug}/auth/google`);
    start.search = new URLSearchParams({
      redirect_uri: 'com.example.mobile://auth',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: clientState,
    }).toString();
    await page.goto(start.toString());

    // The provider's login page, then its consent page.
    await page.waitForURL(`${issuer}/interaction/**`, { timeout: 15_000 });
    await page.fill('input[name=login]', 'e2e-person');
    await page.fill('input[name=password]', 'any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    const { status, location } = await appRedirect;
    expect(status).toBe(302);
    expect(location.startsWith('com.example.mobile://auth?')).toBe(true);
    const params = paramsOf(location);
    expect(params.get('state')).toBe(clientState);
    expect(params.get('error')).toBeNull();
    const code = params.get('code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location).not.toMatch(/access_token/);

    const exchanged = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(exchanged.status, exchanged.text).toBe(200);
    const session = exchanged.body as { access_token: string; user: Record<string, unknown> };
    expect(session.user).toMatchObject({
      email: 'e2e-person@example.test',
      email_verified: true,
      name: 'User e2e-person',
      providers: ['google'],
    });
    const { payload } = await jwtVerify(
      session.access_token,
      createRemoteJWKSet(new URL(`${worker.baseUrl}/v1/${app.slug}/.well-known/jwks.json`)),
      { issuer: `${worker.baseUrl}/v1/${app.slug}`, audience: app.slug },
    );
    expect(payload.sub).toBe(session.user.id);

    // The code is single use.
    const again = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(again.status).toBe(400);
    await page.close();
  }, 90_000);
});
