/**
 * An auth app's lifecycle from its console page in headless Chromium: a new server key (the
 * connected site's SERVICE_AUTH_SERVER_KEY changes, the old key is refused), a new signing key
 * (the JWKS serves both keys) and deleting the app, each only after Confirm (Cancel changes
 * nothing). Every result is checked through the API.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { createAuthApp, effectiveVars, type Seeded, seed } from '../../helpers/connections';
import { checkPage, confirmationDialog, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;

beforeAll(async () => {
  s = await seed(baseUrl, 1);
});

const kids = async (appId: string): Promise<string[]> => {
  const res = await api(baseUrl).get<{ keys: { kid: string }[] }>(`/v1/${appId}/.well-known/jwks.json`);
  expect(res.status, res.text).toBe(200);
  return res.body.keys.map((k) => k.kid);
};

describe("an auth app's Manage section", { timeout: 120_000 }, () => {
  it('rotates the server key and the signing key, and deletes the app, each only after Confirm', async () => {
    // The project's only site is connected to a new app at once, so it holds the server key.
    const app = await createAuthApp(s.as, s.project.id);
    const before = (await effectiveVars(s)).SERVICE_AUTH_SERVER_KEY as string;
    expect(before).toMatch(/^tth_sk_/);
    // The server key introspects (and does nothing else, contract §9): 200 while it is the app's.
    const introspect = (key: string) =>
      api(baseUrl, key).post(`/v1/${app.name}/oauth/introspect`, { token: 'not-a-token' });
    expect((await introspect(before)).status).toBe(200);

    const page = await signedInPage(browser, baseUrl, s.token, `/console/projects/${s.project.slug}`);
    await page.getByRole('link', { name: app.name, exact: true }).click();
    await page.getByRole('heading', { name: 'Manage', exact: true }).waitFor();
    await checkPage(page, 'auth-app-manage');

    await page.getByRole('button', { name: 'Rotate server key' }).click();
    const ask = await confirmationDialog(page);
    await expect(ask.textContent()).resolves.toContain('refused at once');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect((await effectiveVars(s)).SERVICE_AUTH_SERVER_KEY).toBe(before);
    await page.getByRole('button', { name: 'Rotate server key' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'has a new server key' }).waitFor();
    const after = (await effectiveVars(s)).SERVICE_AUTH_SERVER_KEY as string;
    expect(after).toMatch(/^tth_sk_/);
    expect(after).not.toBe(before);
    expect((await introspect(before)).status).toBe(401);
    expect((await introspect(after)).status).toBe(200);

    const keysBefore = await kids(app.name);
    await page.getByRole('button', { name: 'Rotate signing key' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'signs with a new key' }).waitFor();
    const keysAfter = await kids(app.name);
    expect(keysAfter).toEqual(expect.arrayContaining(keysBefore));
    expect(keysAfter.length).toBe(keysBefore.length + 1);

    await page.getByRole('button', { name: 'Delete auth app' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Cancel' }).click();
    expect((await s.as.get(`/api/v1/projects/${s.project.id}/auth-apps/${app.id}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete auth app' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Deleted auth app ${app.name}.` })
      .waitFor();
    expect((await s.as.get(`/api/v1/projects/${s.project.id}/auth-apps/${app.id}`)).status).toBe(404);
    expect((await effectiveVars(s)).SERVICE_AUTH_SERVER_KEY).toBeUndefined();
    expect(await page.getByRole('link', { name: app.name, exact: true }).count()).toBe(0);
    await page.context().close();
  });
});
