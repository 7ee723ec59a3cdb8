/**
 * `{auth_url}` has one meaning everywhere (docs/contract.md §1): the auth service's address
 * (PUBLIC_AUTH_URL, what `npm start` prints as `auth URL:`), every app's routes under
 * `{auth_url}/v1/{app_id}`. The app object's `auth_url` is that address and its `issuer` the app's
 * base; the README's `{auth_url}/v1/blog-auth/…` URLs built from the app object reach the app's
 * routes; the console and the CLI show the same callback URL the Worker sends to the provider.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { cliHomeOf, runCli } from '../helpers/cli';
import { asClient } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';

interface AppObject {
  app_id: string;
  auth_url: string;
  issuer: string;
}

describe('one meaning of {auth_url}', () => {
  it("the app object's auth_url is the Worker's PUBLIC_AUTH_URL and its issuer is {auth_url}/v1/{app_id}, discovery's issuer", async ({
    worker,
    app,
  }) => {
    const res = await app.admin.get<AppObject>(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`);
    expect(res.status).toBe(200);
    expect(res.body.auth_url).toBe(worker.baseUrl);
    expect(res.body.issuer).toBe(`${res.body.auth_url}/v1/${app.slug}`);
    const discovery = await fetch(`${res.body.issuer}/.well-known/openid-configuration`);
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(res.body.issuer);
  });

  it("every README {auth_url}/v1/blog-auth/… URL, with the app object's auth_url, reaches the app's route", async ({
    app,
    pkce,
  }) => {
    const { body } = await app.admin.get<AppObject>(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`);
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const paths = [...readme.matchAll(/\{auth_url\}\/v1\/blog-auth\/([a-z/-]+)/g)].map((m) => m[1] ?? '');
    expect(paths).toEqual(expect.arrayContaining(['auth/google', 'oauth/exchange', 'oauth/id-token']));
    for (const path of new Set(paths)) {
      const url = `${body.auth_url}/v1/${app.slug}/${path}`;
      const res =
        path === 'auth/google'
          ? await fetch(
              `${url}?redirect_uri=myapp://auth&code_challenge=${pkce.challenge}&code_challenge_method=S256`,
              { redirect: 'manual', headers: asClient() },
            )
          : await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...asClient() },
              body: '{}',
            });
      // The route answers for itself: the start redirects to the provider, the posts refuse an empty body.
      expect([302, 400], `${path}: ${res.status}`).toContain(res.status);
    }
  });

  it('the console, the CLI and the Worker agree on the Google callback URL: {issuer}/auth/google/callback', async ({
    worker,
    app,
    pkce,
  }) => {
    const { body } = await app.admin.get<AppObject>(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`);
    const callback = `${body.issuer}/auth/google/callback`;

    const start = await fetch(
      `${body.issuer}/auth/google?redirect_uri=myapp://auth&code_challenge=${pkce.challenge}&code_challenge_method=S256`,
      { redirect: 'manual', headers: asClient() },
    );
    expect(start.status).toBe(302);
    expect(new URL(start.headers.get('location') ?? '').searchParams.get('redirect_uri')).toBe(callback);

    const login = await fetch(`${worker.baseUrl}/console/login`, {
      method: 'POST',
      headers: { origin: worker.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: app.owner.token }),
      redirect: 'manual',
    });
    const cookie = /tether_session=[^;,]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
    const page = await fetch(`${worker.baseUrl}/console/projects/${app.project.slug}/auth-apps/${app.id}`, {
      headers: { cookie: cookie ?? '' },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(callback);
    expect(html).toContain(`POST ${body.issuer}/oauth/nonce`);
    expect(html).not.toContain(`${body.issuer}/v1/`);

    const home = await cliHomeOf({ token: app.owner.token, project: app.project }, worker.baseUrl);
    try {
      const shown = await runCli(home, [
        'auth',
        'provider',
        app.slug,
        'google',
        '--client-id',
        app.google.web,
        '--client-secret',
        'google-secret',
        '--enable',
      ]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(`Callback URL to register: ${callback}`);
    } finally {
      await home.cleanup();
    }
  });
});
