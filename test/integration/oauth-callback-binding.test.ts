/**
 * An auth app's browser sign-in finishes only in the browser that started it (docs/security.md):
 * each start sets a `tether_auth_state_…` cookie on the provider's callback path, and a callback
 * link captured from someone's sign-in and opened elsewhere (no cookie, or another browser's) is
 * 403 with a page saying so, leaving the state for its own browser (a flood of starts:
 * oauth-sign-in-flood.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { api } from '../helpers/api';
import {
  asClient,
  cookiesOf,
  createTestAuthApp,
  githubAccount,
  paramsOf,
  pkceStart,
  startSignIn,
} from '../helpers/oauth';
import { oauthTest } from '../helpers/oauth-fixtures';

// The app's default cap: two starts of one app never meet it (the flood's own file sets it low).
const it = oauthTest;

describe('a browser sign-in is bound to the browser that started it', () => {
  it('the start sets an HttpOnly, SameSite=Lax cookie on the callback path for the sign-in’s ten minutes', async ({
    worker,
  }) => {
    const app = await createTestAuthApp(worker.baseUrl);
    const res = await api(worker.baseUrl).get(
      `/v1/${app.slug}/auth/github?${new URLSearchParams((await pkceStart()).query)}`,
      { headers: asClient() },
    );
    expect(res.status).toBe(302);
    const set = (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie();
    expect(set).toHaveLength(1);
    const cookie = set[0] ?? '';
    expect(cookie).toMatch(/^tether_auth_state_[A-Za-z0-9_-]{12}=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain(`Path=/v1/${app.slug}/auth/github/callback`);
    expect(cookie).toContain('Max-Age=600');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    // The local stack is plain http on loopback: a Secure cookie would not come back.
    expect(cookie).not.toContain('Secure');
  });

  it('a captured callback opened in another browser is 403 with a page, and the state still finishes where it began', async ({
    worker,
    standIn,
  }) => {
    const app = await createTestAuthApp(worker.baseUrl);
    const { query, verifier } = await pkceStart();
    const mine = await startSignIn(worker.baseUrl, app.slug, 'github', query);
    const theirs = await startSignIn(worker.baseUrl, app.slug, 'github', query);
    const code = `gh-${randomBytes(6).toString('hex')}`;
    standIn.githubCode(code, githubAccount());
    const callback = `${worker.baseUrl}/v1/${app.slug}/auth/github/callback?${new URLSearchParams({ code, state: mine.state })}`;
    const open = (headers: Record<string, string>) =>
      fetch(callback, { redirect: 'manual', headers: { ...asClient(), ...headers } });

    const noCookie = await open({ accept: 'text/html' });
    expect([noCookie.status, noCookie.headers.get('location')]).toEqual([403, null]);
    expect(noCookie.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await noCookie.text();
    expect(page).toContain('<meta name="tether-error" content="other_browser">');
    expect(page).toContain('started in another browser');

    const otherBrowser = await open({ accept: 'text/html', cookie: theirs.cookie });
    expect([otherBrowser.status, otherBrowser.headers.get('location')]).toEqual([403, null]);
    const forged = mine.cookie.replace(/=.*/, `=${'A'.repeat(43)}`);
    expect((await open({ accept: 'text/html', cookie: forged })).status).toBe(403);
    // A client asking for JSON gets the same refusal as JSON.
    const json = await open({ accept: 'application/json' });
    expect([json.status, await json.json()]).toEqual([
      403,
      { error: 'this sign-in was started in another browser' },
    ]);

    // None of that used the state up: the starting browser finishes, and its cookie is cleared.
    const own = await open({ cookie: mine.cookie });
    expect(own.status).toBe(302);
    expect(cookiesOf(own)).toMatch(/^tether_auth_state_[A-Za-z0-9_-]{12}=$/);
    const oneTime = paramsOf(own.headers.get('location') ?? '').get('code');
    const exchanged = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/exchange`,
      { code: oneTime, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(exchanged.status, exchanged.text).toBe(200);
    // Used up now: the same browser replaying it gets the used-state 400, never a redirect.
    const replay = await open({ cookie: mine.cookie });
    expect([replay.status, replay.headers.get('location')]).toEqual([400, null]);
  });

  it('the fragment flow: a captured https callback hands no tokens to another browser', async ({
    worker,
    standIn,
  }) => {
    const app = await createTestAuthApp(worker.baseUrl);
    const attacker = await startSignIn(worker.baseUrl, app.slug, 'github', {
      redirect_uri: 'https://app.example.com/signed-in',
    });
    const code = `gh-${randomBytes(6).toString('hex')}`;
    standIn.githubCode(code, githubAccount());
    const path = `/v1/${app.slug}/auth/github/callback?${new URLSearchParams({ code, state: attacker.state })}`;
    const victim = await api(worker.baseUrl).get(path, { headers: asClient() });
    expect([victim.status, victim.headers.get('location')]).toEqual([403, null]);
    expect(victim.text).not.toContain('access_token');
    const starter = await api(worker.baseUrl).get(path, { headers: { cookie: attacker.cookie } });
    expect(starter.status).toBe(302);
    expect(starter.headers.get('location')).toMatch(/^https:\/\/app\.example\.com\/signed-in#access_token=/);
  });

  it('a sign-in started at the standard /oauth/authorize is bound the same way', async ({
    worker,
    standIn,
  }) => {
    const app = await createTestAuthApp(worker.baseUrl);
    const { query } = await pkceStart();
    const authorize = new URLSearchParams({
      ...query,
      response_type: 'code',
      client_id: app.slug,
      provider: 'github',
      state: 'app-state',
    });
    const start = await api(worker.baseUrl).get(`/v1/${app.slug}/oauth/authorize?${authorize}`, {
      headers: asClient(),
    });
    expect(start.status, start.text).toBe(302);
    const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const code = `gh-${randomBytes(6).toString('hex')}`;
    standIn.githubCode(code, githubAccount());
    const path = `/v1/${app.slug}/auth/github/callback?${new URLSearchParams({ code, state })}`;
    expect((await api(worker.baseUrl).get(path)).status).toBe(403);
    const own = await api(worker.baseUrl).get(path, { headers: { cookie: cookiesOf(start) } });
    expect(own.status).toBe(302);
    const back = paramsOf(own.headers.get('location') ?? '');
    expect([back.get('state'), back.get('code')?.length]).toEqual(['app-state', 43]);
  });
});
