/**
 * The console's Tokens and Account pages and its header in headless Chromium: every signed-in
 * page names the person and links `Tokens`; a token is created with a name and an expiry, its
 * value shown once and working, listed without its value, and revoked after Confirm; the account
 * page lists sessions and tokens, and `Sign out everywhere` ends every console session.
 */
import { describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { checkPage, confirmationDialog, shownValue, signedInPage } from '../../helpers/console';

const browser = chromiumForFile();
const baseUrl = inject('baseUrl');

type Tokens = { tokens: Array<{ id: string; name: string; expires_at: string; read_only: boolean }> };

describe('console Tokens and Account', { timeout: 120_000 }, () => {
  it('every page header shows the signed-in e-mail and a Tokens link', async () => {
    const owner = await createAccount();
    const project = await createProject(owner.token);
    const page = await signedInPage(browser, baseUrl, owner.token, `/console/projects/${project.slug}`);
    const header = page.getByRole('banner');
    await expect(header.getByText(owner.email).count()).resolves.toBe(1);
    await header.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    await expect(page.getByRole('banner').getByText(owner.email).count()).resolves.toBe(1);
    await page.context().close();
  });

  it('creates a token shown once that works, lists it with its expiry and revokes it after Confirm', async () => {
    const owner = await createAccount();
    const page = await signedInPage(browser, baseUrl, owner.token, '/console/tokens');
    await checkPage(page, 'tokens');
    await page.getByLabel('Name').fill('ci-deploys');
    await page.getByLabel('Expires').fill('30');
    await page.getByLabel('Read-only').check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const value = await shownValue(page, 'token');
    expect(value).toMatch(/^tth_at_/);
    const asToken = api(baseUrl, value);
    expect((await asToken.get('/api/v1/account')).status).toBe(200);
    expect((await asToken.post('/api/v1/projects', { name: 'nope' })).status).toBe(403);
    const listed = await api(baseUrl, owner.token).get<Tokens>('/api/v1/account/tokens');
    const made = listed.body.tokens.find((t) => t.name === 'ci-deploys');
    const days = (Date.parse(made?.expires_at ?? '') - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(made?.read_only).toBe(true);

    await page.getByRole('link', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: /ci-deploys/ });
    // Its Expires cell is the token's expiry (relative, the exact time in `datetime`).
    await expect(row.locator('time').first().getAttribute('datetime')).resolves.toBe(made?.expires_at);
    expect(await page.content()).not.toContain(value);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Revoked ci-deploys').waitFor();
    expect((await asToken.get('/api/v1/account')).status).toBe(401);
    expect(await page.getByRole('row', { name: /ci-deploys/ }).count()).toBe(0);
    await page.context().close();
  });

  it('a token minted by a leaked token does not survive a cascade revoke from the revoke confirmation', async () => {
    const owner = await createAccount();
    const asOwner = api(baseUrl, owner.token);
    const leaked = await asOwner.post<{ id: string; token: string }>('/api/v1/account/tokens', {
      name: 'leaked',
    });
    const minted = await api(baseUrl, leaked.body.token).post<{ token: string }>('/api/v1/account/tokens', {
      name: 'minted-by-leaked',
    });
    expect(minted.status).toBe(201);
    const page = await signedInPage(browser, baseUrl, owner.token, '/console/tokens');
    await page
      .getByRole('row', { name: /leaked/ })
      .first()
      .getByRole('button', { name: 'Revoke leaked' })
      .click();
    const dialog = await confirmationDialog(page);
    await dialog.getByLabel('Also revoke every token and session made with it').check();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Revoked leaked').waitFor();
    expect((await api(baseUrl, leaked.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await api(baseUrl, minted.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await asOwner.get('/api/v1/account')).status).toBe(200);
    await page.context().close();
  });

  it('a bad expiry is refused with the reason and creates nothing', async () => {
    const owner = await createAccount();
    const page = await signedInPage(browser, baseUrl, owner.token, '/console/tokens');
    await page.getByLabel('Name').fill('too-long');
    await page.getByLabel('Expires').fill('400');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('expires_in_days');
    const listed = await api(baseUrl, owner.token).get<Tokens>('/api/v1/account/tokens');
    expect(listed.body.tokens.some((t) => t.name === 'too-long')).toBe(false);
    await page.context().close();
  });

  it('the account page lists sessions and tokens; Sign out everywhere ends every console session', async () => {
    const owner = await createAccount();
    const first = await signedInPage(browser, baseUrl, owner.token, '/console/account');
    const second = await signedInPage(browser, baseUrl, owner.token, '/console/account');
    await first.reload();
    await checkPage(first, 'account');
    const sessions = first.locator('section', {
      has: first.getByRole('heading', { name: 'Console sessions' }),
    });
    await expect(sessions.getByRole('row').count()).resolves.toBe(3);
    await expect(sessions.getByText('(this browser)').count()).resolves.toBe(1);
    const tokens = first.locator('section', { has: first.getByRole('heading', { name: 'Personal tokens' }) });
    await expect(tokens.getByRole('row', { name: /initial/ }).count()).resolves.toBe(1);
    // The account's record shows its console sign-ins.
    await expect(first.getByText(/signed in|session/i).count()).resolves.toBeGreaterThan(0);

    await first.getByRole('button', { name: 'Sign out everywhere' }).click();
    await (await confirmationDialog(first)).getByRole('button', { name: 'Confirm' }).click();
    await first.waitForURL('**/console/login');
    await second.reload();
    expect(new URL(second.url()).pathname).toBe('/console/login');
    // Tokens are not sessions: the account token still works.
    expect((await api(baseUrl, owner.token).get('/api/v1/account')).status).toBe(200);
    await first.context().close();
    await second.context().close();
  });
});
