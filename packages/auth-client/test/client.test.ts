/**
 * The client against a scripted auth service (fetch answered in process): what it sends for each
 * call, the session it keeps, one refresh for concurrent callers, a refused refresh as signed out,
 * and the one error shape. The same flows against the real stack: stack.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64url, queryOf } from '../encoding.js';
import { AuthError, createAuthClient, memoryStorage, type Session } from '../index.js';

const AUTH = 'https://auth.example.test';
const user = {
  id: 'u1',
  email: 'a@example.com',
  email_verified: true,
  name: null,
  avatar_url: null,
  created_at: '',
  providers: [],
};
let issued = 0;
const sessionBody = () => ({
  access_token: `access-${++issued}`,
  refresh_token: `refresh-${issued}`,
  expires_in: 900,
  token_type: 'Bearer',
  user,
});

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
/** A fetch that records each call and answers with `answer(path, body)`. */
function scripted(answer: (path: string, body: Record<string, string>) => Answer | Promise<Answer>) {
  const calls: Array<{ path: string; body: Record<string, string> }> = [];
  const fetch = async (url: string, init: { body?: string }) => {
    const path = url.slice(`${AUTH}/v1/my-app`.length);
    const body = init.body ? (JSON.parse(init.body) as Record<string, string>) : {};
    calls.push({ path, body });
    const a = await answer(path, body);
    return new Response(JSON.stringify(a.body), { status: a.status, headers: a.headers });
  };
  return { calls, fetch };
}

function client(
  fetch: ReturnType<typeof scripted>['fetch'],
  over: { now?: () => number; openBrowser?: (u: string) => Promise<string | null> } = {},
) {
  return createAuthClient({
    authUrl: `${AUTH}/`,
    appId: 'my-app',
    redirectUri: 'myapp://auth',
    storage: memoryStorage(),
    fetch,
    ...over,
  });
}

describe('auth client', () => {
  it('signs in through the browser with an S256 challenge of the verifier it exchanges, checking state', async () => {
    const service = scripted(() => ({ status: 200, body: sessionBody() }));
    let opened = '';
    const c = client(service.fetch, {
      openBrowser: async (url) => {
        opened = url;
        return `myapp://auth?code=one-time&state=${queryOf(url).state}`;
      },
    });
    const session = await c.signIn('github');
    const q = queryOf(opened);
    expect(opened.startsWith(`${AUTH}/v1/my-app/auth/github?`)).toBe(true);
    expect(q).toMatchObject({ redirect_uri: 'myapp://auth', code_challenge_method: 'S256' });
    expect(service.calls).toEqual([
      { path: '/oauth/exchange', body: { code: 'one-time', code_verifier: expect.any(String) } },
    ]);
    const verifier = service.calls[0]?.body.code_verifier ?? '';
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.code_challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(session?.refresh_token).toBe(`refresh-${issued}`);
    await expect(c.handleRedirect(`myapp://auth?code=x&state=${q.state}`)).rejects.toMatchObject({
      code: 'no_sign_in_pending',
    });
  });

  it('refuses a redirect of another sign-in and a closed browser', async () => {
    const service = scripted(() => ({ status: 200, body: sessionBody() }));
    const forged = client(service.fetch, { openBrowser: async () => 'myapp://auth?code=stolen&state=other' });
    await expect(forged.signIn('google')).rejects.toMatchObject({ code: 'state_mismatch' });
    const closed = client(service.fetch, { openBrowser: async () => null });
    await expect(closed.signIn('google')).rejects.toMatchObject({ code: 'cancelled', status: 0 });
    // Nothing is redeemed: a closed browser only asks the authorization endpoint why (without a
    // PKCE challenge, which starts nothing), contract §15.
    expect(service.calls.map((call) => call.path.split('?')[0])).toEqual(['/oauth/authorize']);
  });

  it('shares one refresh among concurrent callers near expiry and stores the rotated token first', async () => {
    let clock = Date.now();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const service = scripted(async (path) => {
      if (path === '/oauth/refresh') await held;
      return { status: 200, body: sessionBody() };
    });
    const c = client(service.fetch, { now: () => clock });
    const first = await c.signInWithIdToken({ provider: 'google', idToken: 'id.token.x', nonce: 'n' });
    expect(await c.getSession()).toEqual(first);
    clock += 850_000; // within the 60 s margin of the 900 s token
    const waiting = Array.from({ length: 10 }, () => c.getSession());
    release();
    const sessions = await Promise.all(waiting);
    expect(service.calls.map((call) => call.path)).toEqual(['/oauth/id-token', '/oauth/refresh']);
    expect(service.calls[1]?.body).toEqual({ refresh_token: first.refresh_token });
    expect(new Set(sessions.map((s) => s?.refresh_token))).toEqual(new Set([`refresh-${issued}`]));
    expect(await c.getSession()).toEqual(sessions[0]);
  });

  it('treats a refused refresh token as signed out and tells the listeners', async () => {
    let clock = Date.now();
    const service = scripted((path) =>
      path === '/oauth/refresh'
        ? { status: 400, body: { error: 'invalid or expired refresh token', code: 'invalid_grant' } }
        : { status: 200, body: sessionBody() },
    );
    const c = client(service.fetch, { now: () => clock });
    const seen: Array<Session | null> = [];
    c.onSessionChange((s) => seen.push(s));
    await c.signInWithIdToken({ provider: 'apple', idToken: 'id.token.y' });
    clock += 900_000;
    expect(await c.getSession()).toBeNull();
    expect(seen.map((s) => s?.access_token ?? null)).toEqual([`access-${issued}`, null]);
  });

  it('fails with one error type carrying code, status and retryAfter', async () => {
    const limited = scripted(() => ({
      status: 429,
      body: { error: 'too many requests' },
      headers: { 'retry-after': '42' },
    }));
    const err = await client(limited.fetch)
      .issueNonce()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({
      code: 'rate_limited',
      status: 429,
      retryAfter: 42,
      message: 'too many requests',
    });
    const refused = scripted(() => ({
      status: 401,
      body: { error: 'invalid id token', code: 'invalid_token' },
    }));
    await expect(
      client(refused.fetch).signInWithIdToken({ provider: 'google', idToken: 'x' }),
    ).rejects.toMatchObject({ code: 'invalid_token', status: 401, retryAfter: null });
    const down = createAuthClient({
      authUrl: AUTH,
      appId: 'a',
      redirectUri: 'myapp://auth',
      storage: memoryStorage(),
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    });
    await expect(down.issueNonce()).rejects.toMatchObject({ code: 'network_error', status: 0 });
  });

  it('signs out here even when the service cannot be reached, and ends the session there when it can', async () => {
    const service = scripted(() => ({ status: 200, body: sessionBody() }));
    const c = client(service.fetch);
    const s = await c.signInWithIdToken({ provider: 'google', idToken: 'z' });
    await c.signOut();
    expect(await c.getSession()).toBeNull();
    expect(service.calls.at(-1)).toEqual({ path: '/logout', body: { refresh_token: s.refresh_token } });
  });

  it('takes SERVICE_AUTH_PUBLIC_URL, which already names the app, as well as the service address', async () => {
    const service = scripted(() => ({ status: 201, body: { nonce: 'n', expires_in: 600 } }));
    const named = createAuthClient({
      authUrl: `${AUTH}/v1/my-app`,
      appId: 'my-app',
      redirectUri: 'myapp://auth',
      storage: memoryStorage(),
      fetch: service.fetch,
    });
    expect(await named.issueNonce()).toEqual({ nonce: 'n', expires_in: 600 });
    expect(service.calls).toEqual([{ path: '/oauth/nonce', body: {} }]);
  });

  it('encodes base64url like Node for every length', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = new Uint8Array(Array.from({ length: n }, (_, i) => (i * 37 + n) % 256));
      expect(base64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
  });
});
