/**
 * The client package against the real stack: a Worker on the stack's PostgreSQL wired to the
 * local Google, GitHub and Apple stand-ins that `npm start` runs, and headless Chromium playing
 * the phone's browser session (the custom-scheme redirect caught as the OS would catch it and
 * handed back to the client). Proves the browser sign-in for each provider, a native ID token
 * bound to an issued nonce, one refresh for ten concurrent callers, and that a reused refresh
 * token signs the app out.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppleStandIn, startAppleStandIn } from '../../../scripts/local/stand-ins/apple-stand-in';
import { type SignInStandIn, startSignInStandIn } from '../../../scripts/local/stand-ins/sign-in-stand-in';
import { enableApple } from '../../../test/helpers/apple';
import { launchChromiumContext } from '../../../test/helpers/browser';
import { asClient, CLIENT_IP_HEADER, createTestAuthApp, type TestAuthApp } from '../../../test/helpers/oauth';
import { type ExtraWorker, startExtraWorker } from '../../../test/helpers/worker';
import { type AuthClient, AuthError, createAuthClient, memoryStorage, type Session } from '../index.js';

const REDIRECT = 'myapp://auth';
/** What the browser shows once the OS has handed the redirect to the app. */
const RETURNED = 'Returned to the app.';
let signIn: SignInStandIn;
let apple: AppleStandIn;
let worker: ExtraWorker;
let app: TestAuthApp;
let browser: BrowserContext;
let closeBrowser: (() => Promise<void>) | undefined;

beforeAll(async () => {
  [signIn, apple] = await Promise.all([startSignInStandIn(), startAppleStandIn()]);
  worker = await startExtraWorker({ ...signIn.env, ...apple.env, CLIENT_IP_HEADER });
  app = await createTestAuthApp(worker.baseUrl, { origins: [REDIRECT] });
  await enableApple(app);
  const launched = await launchChromiumContext();
  browser = launched.context;
  closeBrowser = launched.close;
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await worker?.stop();
  await Promise.all([signIn?.stop(), apple?.stop()]);
});

/**
 * The phone's browser session: opens the URL in Chromium, lets `pick` choose on the provider's
 * page, and resolves to the app redirect the auth service's callback answers with (Chromium
 * cannot follow a custom scheme; the test reads the callback's Location, as the OS would).
 */
function chromiumSession(pick: (page: import('playwright-core').Page) => Promise<void>) {
  return async (url: string, redirectUri: string): Promise<string | null> => {
    const page = await browser.newPage();
    try {
      const cdp = await browser.newCDPSession(page);
      const back = new Promise<string>((resolve, reject) => {
        cdp.on('Fetch.requestPaused', async (event) => {
          const location = event.responseHeaders?.find((h) => h.name.toLowerCase() === 'location')?.value;
          const refused = location ? undefined : await answerOf(cdp, event);
          // Settled only once the browser was handed its page: a page closed while Chromium still
          // holds a paused response can take half a minute to close.
          await cdp.send('Fetch.fulfillRequest', {
            requestId: event.requestId,
            responseCode: 200,
            body: Buffer.from(RETURNED).toString('base64'),
          });
          if (location?.startsWith(redirectUri)) resolve(location);
          // A callback that does not send the browser back to the app fails the sign-in at once, saying why.
          else if (refused) reject(new Error(`the callback answered ${refused}`));
        });
        setTimeout(() => reject(new Error('the sign-in never came back to the app')), 30_000).unref();
      });
      // Settled by whichever of the sign-in or the pick fails first; later is not unhandled.
      back.catch(() => undefined);
      await cdp.send('Fetch.enable', {
        patterns: [
          { urlPattern: `${worker.baseUrl}/v1/${app.slug}/auth/*/callback*`, requestStage: 'Response' },
        ],
      });
      await page.goto(url);
      await Promise.race([pick(page).catch(async (err: Error) => failedOn(page, err)), back]);
      const location = await back;
      await page.getByText(RETURNED).waitFor();
      return location;
    } finally {
      await page.close();
    }
  };
}

/** The status and body of a paused response, for a failure's message. */
async function answerOf(
  cdp: import('playwright-core').CDPSession,
  event: { requestId: string; responseStatusCode?: number },
): Promise<string> {
  const body = await cdp
    .send('Fetch.getResponseBody', { requestId: event.requestId })
    .then((b) => (b.base64Encoded ? Buffer.from(b.body, 'base64').toString() : b.body))
    .catch(() => '');
  return `${event.responseStatusCode}: ${body.slice(0, 500)}`;
}

/** Throws `err` with where the browser was and what it showed, so a stuck sign-in says why. */
async function failedOn(page: import('playwright-core').Page, err: Error): Promise<never> {
  const shown = await page.content().catch(() => '');
  throw new Error(`${err.message}\nat ${page.url()}:\n${shown.slice(0, 1000)}`);
}

const pickPerson = (name: RegExp) => (page: import('playwright-core').Page) =>
  page.getByRole('button', { name }).click({ timeout: 15_000 });

/** A fetch that names one test client and keeps the auth-service paths it was asked for. */
function countingFetch() {
  const paths: string[] = [];
  const client = asClient();
  const fetch = (input: string, init: { method: string; headers: Record<string, string>; body?: string }) => {
    paths.push(new URL(input).pathname.replace(`/v1/${app.slug}`, ''));
    return globalThis.fetch(input, { ...init, headers: { ...init.headers, ...client } });
  };
  return { paths, fetch };
}

function client(over: Partial<Parameters<typeof createAuthClient>[0]> = {}): AuthClient {
  return createAuthClient({
    authUrl: worker.baseUrl,
    appId: app.slug,
    redirectUri: REDIRECT,
    storage: memoryStorage(),
    fetch: countingFetch().fetch,
    ...over,
  });
}

/** Verifies a session's access token against the app's JWKS and returns its subject. */
async function subjectOf(session: Session): Promise<string | undefined> {
  const issuer = `${worker.baseUrl}/v1/${app.slug}`;
  const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
  const { payload } = await jwtVerify(session.access_token, jwks, { issuer, audience: app.slug });
  return payload.sub;
}

describe('the auth client on the local stack', () => {
  it.each([
    ['google', /Alice Example/, 'alice@example.com', 'Alice Example'],
    ['github', /Bob Example/, 'bob@example.com', 'Bob Example'],
    ['apple', /Jo Appleseed/, 'jo@example.com', 'Jo Appleseed'],
  ])(
    'signs in with %s in the browser session and keeps the session',
    async (provider, person, email, name) => {
      const c = client({ openBrowser: chromiumSession(pickPerson(person)) });
      const session = await c.signIn(provider);
      expect(session?.user).toMatchObject({ email, name, email_verified: true });
      expect(session?.user.providers).toContain(provider);
      expect(await subjectOf(session as Session)).toBe(session?.user.id);
      expect(await c.getSession()).toEqual(session);
    },
  );

  it('signs in with a native ID token bound to an issued nonce, which a second sign-in cannot reuse', async () => {
    const c = client();
    const { nonce, expires_in } = await c.issueNonce();
    expect(expires_in).toBe(600);
    const session = await c.signInWithIdToken({
      provider: 'google',
      idToken: await googleIdToken(nonce),
      nonce,
    });
    expect(session.user).toMatchObject({
      email: 'alice@example.com',
      providers: expect.arrayContaining(['google']),
    });
    const again = await c
      .signInWithIdToken({ provider: 'google', idToken: await googleIdToken(nonce), nonce })
      .catch((err: unknown) => err);
    expect(again).toBeInstanceOf(AuthError);
    expect(again).toMatchObject({ code: 'invalid_token', status: 401 });
  });

  it('makes one refresh for ten concurrent getSession calls at expiry, storing the rotated token first', async () => {
    let clock = Date.now();
    const counted = countingFetch();
    const storage = memoryStorage();
    const c = client({ fetch: counted.fetch, storage, now: () => clock });
    const first = await nativeSignIn(c);
    clock = first.expires_at * 1000 - 30_000;
    const sessions = await Promise.all(Array.from({ length: 10 }, () => c.getSession()));
    expect(counted.paths.filter((p) => p === '/oauth/refresh')).toHaveLength(1);
    const refreshed = sessions[0] as Session;
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    for (const s of sessions) expect(s).toEqual(refreshed);
    expect(JSON.parse(String(await storage.getItem(`tether.${app.slug}.session`)))).toEqual(refreshed);
    expect(await subjectOf(refreshed)).toBe(first.user.id);
  });

  it('signs the app out when its refresh token was used by someone else (onSessionChange hears null)', async () => {
    let clock = Date.now();
    const c = client({ now: () => clock });
    const heard: Array<string | null> = [];
    c.onSessionChange((s) => heard.push(s?.refresh_token ?? null));
    const first = await nativeSignIn(c);
    clock = first.expires_at * 1000;
    const second = (await c.getSession()) as Session;
    // The first refresh token, copied off the device, is presented again: the service revokes the family.
    const replay = await fetch(`${worker.baseUrl}/v1/${app.slug}/oauth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asClient() },
      body: JSON.stringify({ refresh_token: first.refresh_token }),
    });
    expect(replay.status).toBe(400);
    clock = second.expires_at * 1000;
    expect(await c.getSession()).toBeNull();
    expect(heard).toEqual([first.refresh_token, second.refresh_token, null]);
  });

  it('ends the session at the service on signOut', async () => {
    const c = client();
    const session = await nativeSignIn(c);
    await c.signOut();
    expect(await c.getSession()).toBeNull();
    const refresh = await fetch(`${worker.baseUrl}/v1/${app.slug}/oauth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asClient() },
      body: JSON.stringify({ refresh_token: session.refresh_token }),
    });
    expect(refresh.status).toBe(400);
  });
});

/**
 * A native Google sign-in with a nonce of the app's own (tokens minted in the same second for
 * the same person would otherwise be the same token, which the service refuses as a replay).
 */
async function nativeSignIn(c: AuthClient): Promise<Session> {
  const nonce = crypto.randomUUID();
  return c.signInWithIdToken({ provider: 'google', idToken: await googleIdToken(nonce), nonce });
}

/**
 * An ID token for the app's iOS client from the Google stand-in, as Google's iOS SDK gets one
 * (authorization code with PKCE, `nonce` passed through), for the first test person.
 */
async function googleIdToken(nonce?: string): Promise<string> {
  const base = signIn.url;
  const redirect = 'com.googleusercontent.apps.test:/oauth2redirect';
  const picked = await fetch(`${base}/google/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: app.google.ios,
      redirect_uri: redirect,
      response_type: 'code',
      scope: 'openid email profile',
      user: '100000000000000000001',
      ...(nonce ? { nonce } : {}),
    }),
  });
  const code = new URL(picked.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const token = await fetch(`${base}/google/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: app.google.ios,
      // The stand-in authenticates every client; any secret passes.
      client_secret: 'stand-in',
    }),
  });
  const body = (await token.json()) as { id_token?: string };
  if (!body.id_token) throw new Error(`no ID token: ${JSON.stringify(body)}`);
  return body.id_token;
}
