/**
 * Console sign-in and sign-out in headless Chromium: the session cookie's attributes, the way
 * back to the page asked for, and a signed-out session refused by the API too.
 */
import { describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { checkPage, signedInPage } from '../../helpers/console';

const browser = chromiumForFile();
const baseUrl = inject('baseUrl');

describe('console sign-in', { timeout: 120_000 }, () => {
  it('GET / redirects to the console, which leads to the login page', async () => {
    const res = await fetch(`${baseUrl}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console');
    const page = await (await browser.newContext({ baseURL: baseUrl })).newPage();
    await page.goto('/');
    expect(new URL(page.url()).pathname).toBe('/console/login');
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    await checkPage(page, 'login');
    await page.context().close();
  });

  it('signing in sets an HttpOnly SameSite=Lax session cookie the API accepts, and returns to the page asked for', async () => {
    const account = await createAccount();
    const project = await createProject(account.token);
    const page = await signedInPage(browser, baseUrl, account.token, `/console/projects/${project.slug}`);
    expect(new URL(page.url()).pathname).toBe(`/console/projects/${project.slug}`);
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'tether_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
    const me = await api(baseUrl, cookie?.value).get<{ email: string }>('/api/v1/account');
    expect(me.body.email).toBe(account.email);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/console/login');
    expect((await api(baseUrl, cookie?.value).get('/api/v1/account')).status).toBe(401);
    await page.goto('/console');
    expect(new URL(page.url()).pathname).toBe('/console/login');
    await page.context().close();
  });

  it('a wrong token is refused on the page, and a return path to another site is ignored', async () => {
    const page = await (await browser.newContext({ baseURL: baseUrl })).newPage();
    await page.goto('/console/login?next=//evil.example/x');
    await page.getByLabel('Account token').fill('tth_at_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not accepted');
    const account = await createAccount();
    await page.getByLabel('Account token').fill(account.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/console');
    expect(new URL(page.url()).host).toBe(new URL(baseUrl).host);
    await page.context().close();
  });

  it('pages carry a strict CSP and refuse framing; a form post from another origin changes nothing', async () => {
    const res = await fetch(`${baseUrl}/console/login`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const account = await createAccount();
    const session = await api(baseUrl, account.token).post<{ token: string }>('/api/v1/account/sessions');
    const forged = await fetch(`${baseUrl}/console/projects`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: `tether_session=${session.body.token}`,
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'name=forged',
    });
    expect(forged.status).toBe(403);
    const sameOriginNoToken = await fetch(`${baseUrl}/console/projects`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: `tether_session=${session.body.token}`,
        origin: baseUrl,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'name=forged',
    });
    expect(sameOriginNoToken.status).toBe(403);
    const projects = await api(baseUrl, account.token).get<{ projects: unknown[] }>('/api/v1/projects');
    expect(projects.body.projects).toEqual([]);
  });
});
