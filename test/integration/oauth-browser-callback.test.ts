/**
 * The browser sign-in's callback over HTTP: /v1/{appSlug}/auth/{provider}/callback returns a
 * one-time code, the tokens in the fragment (https only) or error=<message>, never a redirect
 * for an unknown state.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { CORPUS_ORIGINS } from '../fixtures/redirect-corpus';
import { api } from '../helpers/api';
import { browserCookie, createTestAuthApp, githubAccount, paramsOf } from '../helpers/oauth';
import { oauthTestWith } from '../helpers/oauth-fixtures';

/** The file's fixtures, and `callback(provider, query)`: GET /auth/{provider}/callback of the file's app, from the browser that started the state. */
const it = oauthTestWith({ appOptions: { origins: CORPUS_ORIGINS } }).extend(
  'callback',
  async ({ worker, app }) =>
    (provider: string, query: Record<string, string>) =>
      api(worker.baseUrl).get(`/v1/${app.slug}/auth/${provider}/callback?${new URLSearchParams(query)}`, {
        headers: browserCookie(query.state),
      }),
);

describe('the callback', () => {
  it('GitHub: returns to the redirect_uri with a one-time code and the client state, which exchange', async ({
    standIn,
    worker,
    app,
    pkce,
    exchange,
    browser: { withPkce, githubSignIn },
  }) => {
    const location = await githubSignIn({
      ...withPkce('myapp://auth'),
      state: 'xyz',
    });
    expect(location).toMatch(/^myapp:\/\/auth\?code=[A-Za-z0-9_-]{43}&state=xyz$/);
    const res = await exchange({ code: paramsOf(location).get('code'), code_verifier: pkce.verifier });
    expect(res.status).toBe(200);
    const tokenCall = standIn.tokenRequests.at(-1);
    expect(tokenCall?.form.get('client_secret')).toBe('github-secret');
    expect(tokenCall?.form.get('redirect_uri')).toBe(`${worker.baseUrl}/v1/${app.slug}/auth/github/callback`);
  });

  it('Google: verifies the ID token with the nonce it sent, then returns a code', async ({
    standIn,
    browser: { withPkce, startSignIn },
    callback,
  }) => {
    const { state, location } = await startSignIn('google', withPkce('https://app.example.com'));
    const nonce = new URL(location).searchParams.get('nonce');
    const code = `g-${randomBytes(6).toString('hex')}`;
    standIn.googleCode(code, {
      sub: `g-${code}`,
      email: `${code}@example.test`,
      email_verified: true,
      nonce,
    });
    const res = await callback('google', { code, state });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^https:\/\/app\.example\.com\?code=/);
    const form = standIn.tokenRequests.at(-1)?.form;
    expect(form?.get('client_secret')).toBe('google-secret');
    expect(form?.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('Google: an ID token with another nonce ends in error=, never a code', async ({
    standIn,
    browser: { withPkce, startSignIn },
    callback,
  }) => {
    const { state } = await startSignIn('google', withPkce('myapp://auth'));
    const code = `g-${randomBytes(6).toString('hex')}`;
    standIn.googleCode(code, { sub: 'x', email: 'x@example.test', nonce: 'replayed-nonce' });
    const res = await callback('google', { code, state });
    const params = paramsOf(res.headers.get('location') ?? '');
    expect(res.headers.get('location')).toMatch(/^myapp:\/\/auth\?error=/);
    expect(params.get('code')).toBeNull();
    expect(params.get('error')).toMatch(/nonce/);
  });

  it('the provider reporting an error sends error=<message> to the redirect_uri', async ({
    browser: { withPkce, startSignIn },
    callback,
  }) => {
    const { state } = await startSignIn('github', {
      ...withPkce('myapp://auth'),
      state: 's1',
    });
    const res = await callback('github', {
      error: 'access_denied',
      error_description: 'The user has denied your application access.',
      state,
    });
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect(location.startsWith('myapp://auth?error=')).toBe(true);
    expect(paramsOf(location).get('error')).toMatch(/denied/);
    expect(paramsOf(location).get('state')).toBe('s1');
  });

  it('a provider code the provider refuses ends in error=', async ({
    browser: { withPkce, startSignIn },
    callback,
  }) => {
    const { state } = await startSignIn('github', withPkce('myapp://auth'));
    const res = await callback('github', { code: 'never-issued', state });
    expect(paramsOf(res.headers.get('location') ?? '').get('error')).toMatch(/GitHub/);
  });

  it('GitHub without a verified primary e-mail ends in error=', async ({
    browser: { withPkce, githubSignIn },
  }) => {
    const account = githubAccount();
    account.emails = account.emails.map((e) => ({ ...e, verified: !e.primary }));
    const location = await githubSignIn(withPkce('myapp://auth'), { account });
    expect(paramsOf(location).get('error')).toMatch(/verified primary e-mail/);
  });

  it('the state is single use and unknown states get JSON 400, never a redirect', async ({
    standIn,
    browser: { withPkce, startSignIn },
    callback,
  }) => {
    const { state } = await startSignIn('github', withPkce('myapp://auth'));
    const code = `gh-${randomBytes(6).toString('hex')}`;
    standIn.githubCode(code, githubAccount());
    expect((await callback('github', { code, state })).status).toBe(302);
    const queries: Array<Record<string, string>> = [
      { code, state },
      { code },
      { code, state: randomBytes(32).toString('base64url') },
    ];
    for (const query of queries) {
      const res = await callback('github', query);
      expect([res.status, res.headers.get('location')]).toEqual([400, null]);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it("a state started for Google is refused at GitHub's callback", async ({
    browser: { withPkce, startSignIn },
    callback,
  }) => {
    const { state } = await startSignIn('google', withPkce('myapp://auth'));
    const res = await callback('github', { code: 'c', state });
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
  });

  it('a disabled user is sent back with error=Account is disabled', async ({
    app,
    browser: { withPkce, githubSignIn },
  }) => {
    const account = githubAccount();
    await githubSignIn(withPkce('myapp://auth'), { account });
    const users = await app.admin.get<{ users: Array<{ id: string; email: string }> }>(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users?limit=1000`,
    );
    const user = users.body.users.find((u) => u.email === account.emails[1]?.email);
    await app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${user?.id}`, {
      disabled: true,
    });
    const location = await githubSignIn(withPkce('myapp://auth'), { account });
    expect(paramsOf(location).get('error')).toBe('Account is disabled');
    expect(paramsOf(location).get('code')).toBeNull();
  });

  it('the user limit sends error= back', async ({ worker, browser: { withPkce, githubSignIn } }) => {
    const limited = await createTestAuthApp(worker.baseUrl, { userLimit: 0 });
    const location = await githubSignIn(withPkce('myapp://auth'), { slug: limited.slug });
    expect(paramsOf(location).get('error')).toBe("This app's user limit has been reached");
  });

  it('without code_challenge the https web flow returns the tokens in the fragment', async ({
    browser: { githubSignIn },
  }) => {
    const location = await githubSignIn({
      redirect_uri: 'https://links.example.com/auth/callback',
      state: 'w',
    });
    expect(location.startsWith('https://links.example.com/auth/callback#')).toBe(true);
    const fragment = new URLSearchParams(location.split('#')[1]);
    expect(fragment.get('access_token')).toMatch(/^ey/);
    expect(fragment.get('refresh_token')).toMatch(/^tth_rt_/);
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.get('expires_in')).toBe('900');
    expect(fragment.get('state')).toBe('w');
    expect(paramsOf(location).get('access_token')).toBeNull();
  });

  it('an origin removed while the user was at the provider is not redirected to', async ({
    standIn,
    worker,
    browser: { withPkce, startSignIn },
  }) => {
    const own = await createTestAuthApp(worker.baseUrl);
    const { state } = await startSignIn('github', withPkce('myapp://auth'), own.slug);
    await own.admin.patch(`/api/v1/projects/${own.project.id}/auth-apps/${own.id}`, {
      allowed_origins: ['https://app.example.com'],
    });
    const code = `gh-${randomBytes(6).toString('hex')}`;
    standIn.githubCode(code, githubAccount());
    const res = await api(worker.baseUrl).get(
      `/v1/${own.slug}/auth/github/callback?${new URLSearchParams({ code, state })}`,
      { headers: browserCookie(state) },
    );
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
  });
});
