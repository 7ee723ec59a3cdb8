/**
 * Starting a browser sign-in over HTTP: /v1/{appSlug}/auth/{provider}. A redirect_uri that is
 * not registered (the whole redirect corpus) gets JSON 400 and never a redirect; an accepted one
 * (contract §9) gets the code at the very URL given. The callback is in oauth-browser-callback.test.ts.
 */
import { describe, expect } from 'vitest';
import { ACCEPTED_REDIRECTS, CORPUS_ORIGINS, REFUSED_REDIRECTS } from '../fixtures/redirect-corpus';
import { createTestAuthApp } from '../helpers/oauth';
import { oauthTestWith } from '../helpers/oauth-fixtures';

const it = oauthTestWith({ appOptions: { origins: CORPUS_ORIGINS } });

describe('starting a sign-in', () => {
  it('redirects to the provider with server-side state, a nonce and our own PKCE', async ({
    standIn,
    worker,
    app,
    pkce,
    browser: { start, withPkce },
  }) => {
    const res = await start(withPkce('myapp://auth'));
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location') ?? '');
    expect(`${to.origin}${to.pathname}`).toBe(standIn.env.GOOGLE_AUTHORIZE_URL);
    expect(to.searchParams.get('client_id')).toBe(app.google.web);
    expect(to.searchParams.get('redirect_uri')).toBe(`${worker.baseUrl}/v1/${app.slug}/auth/google/callback`);
    expect(to.searchParams.get('scope')).toBe('openid email profile');
    expect(to.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    // The app's challenge stays with us; the provider gets a challenge of our own verifier.
    expect(to.searchParams.get('code_challenge')).not.toBe(pkce.challenge);
  });

  it('400 JSON and no redirect for an unregistered redirect_uri', async ({
    browser: { start, withPkce },
  }) => {
    const res = await start(withPkce('myapp://evil'));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.body).toEqual({ error: 'redirect_uri is not a registered origin of this app' });
  });

  for (const [trick, uris] of Object.entries(REFUSED_REDIRECTS)) {
    it(`the redirect corpus (${trick}) is refused over HTTP without a redirect`, async ({
      browser: { start, withPkce },
    }) => {
      for (const uri of uris) {
        for (const provider of ['google', 'github']) {
          const res = await start(withPkce(uri), provider);
          expect([res.status, res.headers.get('location')], `${provider} ${JSON.stringify(uri)}`).toEqual([
            400,
            null,
          ]);
        }
      }
    });
  }

  it('§9: every accepted redirect of the corpus (any path and query, case aside) starts a sign-in', async ({
    browser: { start, withPkce },
  }) => {
    for (const uri of ACCEPTED_REDIRECTS) {
      const res = await start(withPkce(uri), 'github');
      expect(res.status, JSON.stringify(uri)).toBe(302);
    }
  });

  it('§9: the code comes back to the very URL given, its own query kept and a planted code replaced', async ({
    browser: { withPkce, githubSignIn },
  }) => {
    const location = await githubSignIn({
      ...withPkce('https://app.example.com/native/cb?next=%2Fhome&code=planted'),
      state: 's1',
    });
    expect(location).toMatch(
      /^https:\/\/app\.example\.com\/native\/cb\?next=%2Fhome&code=[A-Za-z0-9_-]{43}&state=s1$/,
    );
  });

  it('§9: a registered loopback origin matches on any port (RFC 8252, 7.3); other loopback spellings do not', async ({
    worker,
    browser: { start, withPkce, githubSignIn },
  }) => {
    const dev = await createTestAuthApp(worker.baseUrl, { origins: ['http://127.0.0.1', 'http://[::1]'] });
    const location = await githubSignIn(withPkce('http://127.0.0.1:53211/cb'), { slug: dev.slug });
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:53211\/cb\?code=[A-Za-z0-9_-]{43}$/);
    expect((await start(withPkce('http://[::1]:8080/'), 'github', dev.slug)).status).toBe(302);
    for (const uri of ['http://localhost:8080/', 'http://0x7f.0.0.1:8080/', 'http://127.0.0.1.nip.io:80/']) {
      const res = await start(withPkce(uri), 'github', dev.slug);
      expect([res.status, res.headers.get('location')], uri).toEqual([400, null]);
    }
  });

  it('plain and missing code_challenge_method are refused', async ({ pkce, browser: { start } }) => {
    for (const method of ['plain', undefined]) {
      const query: Record<string, string> = { redirect_uri: 'myapp://auth', code_challenge: pkce.challenge };
      if (method) query.code_challenge_method = method;
      const res = await start(query);
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toMatch(/S256/);
    }
  });

  it('a custom scheme without code_challenge is refused (tokens never go to a custom scheme)', async ({
    browser: { start },
  }) => {
    const res = await start({ redirect_uri: 'myapp://auth' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('a provider that is not enabled is refused', async ({ worker, browser: { start, withPkce } }) => {
    const off = await createTestAuthApp(worker.baseUrl, { github: false });
    const res = await start(withPkce('myapp://auth'), 'github', off.slug);
    expect([res.status, res.body]).toEqual([400, { error: 'provider github is not enabled for this app' }]);
  });

  it('an unknown provider is 400 naming it, an unknown app 404', async ({ browser: { start, withPkce } }) => {
    const apple = await start(withPkce('myapp://auth'), 'apple');
    expect([apple.status, apple.headers.get('location')]).toEqual([400, null]);
    expect(apple.body).toEqual({ error: expect.stringMatching(/^provider/) });
    expect((await start(withPkce('myapp://auth'), 'google', 'no-such-app-here')).status).toBe(404);
  });
});
