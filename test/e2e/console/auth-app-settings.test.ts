/**
 * An auth app's Settings in headless Chromium, the parts auth-app.test.ts leaves: the `Enabled`
 * switch turns the app off and on, and the GitHub provider is saved with its client ID and
 * secret, the secret never echoed on the page; settings the form does not show (contract §9's
 * `require_issued_nonce` and Google's `skip_nonce_check`) are kept by its saves and set from the form. Every result is
 * checked through the API.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createAuthApp, type Seeded, type Service, seed } from '../../helpers/connections';
import { signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let app: Service;

interface AppBody {
  id: string;
  enabled: boolean;
  require_issued_nonce?: boolean;
  app_links?: { ios_app_ids: string[]; android_package_names: string[] };
  providers: {
    google?: { skip_nonce_check?: boolean };
    github?: { enabled: boolean; client_id: string; client_secret_set?: boolean };
  };
}

async function appNow(): Promise<AppBody> {
  const res = await s.as.get<{ auth_apps: AppBody[] }>(`/api/v1/projects/${s.project.id}/auth-apps`);
  expect(res.status, res.text).toBe(200);
  return res.body.auth_apps.find((a) => a.id === app.id) as AppBody;
}

async function save(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('status').filter({ hasText: 'Settings saved' }).waitFor();
}

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  app = await createAuthApp(s.as, s.project.id);
});

describe("an auth app's Settings", { timeout: 120_000 }, () => {
  it("turns the app off and on, and saves GitHub's client ID and secret without ever showing the secret; §9's nonce settings set through the API survive its saves", async () => {
    const set = await s.as.patch(`/api/v1/projects/${s.project.id}/auth-apps/${app.id}`, {
      require_issued_nonce: true,
      providers: { google: { enabled: false, client_id: 'web.apps.example', skip_nonce_check: true } },
    });
    expect(set.status, set.text).toBe(200);
    const page = await signedInPage(browser, baseUrl, s.token, `/console/projects/${s.project.slug}`);
    await page.getByRole('link', { name: app.name, exact: true }).click();
    const enabled = page.getByRole('checkbox', { name: 'Enabled', exact: true });
    expect(await enabled.isChecked()).toBe(true);

    await enabled.uncheck();
    await save(page);
    expect((await appNow()).enabled).toBe(false);
    expect(await page.getByRole('checkbox', { name: 'Enabled', exact: true }).isChecked()).toBe(false);

    const secret = 'github-secret-never-shown';
    await page.getByRole('checkbox', { name: 'Enabled', exact: true }).check();
    await page.getByRole('checkbox', { name: 'GitHub enabled' }).check();
    await page.getByRole('textbox', { name: 'GitHub client ID' }).fill('Iv1.github-client');
    await page.getByLabel('GitHub client secret').fill(secret);
    await save(page);
    const saved = await appNow();
    expect(saved.enabled).toBe(true);
    expect(saved.require_issued_nonce).toBe(true);
    expect(saved.providers.google?.skip_nonce_check).toBe(true);
    expect(saved.providers.github).toMatchObject({
      enabled: true,
      client_id: 'Iv1.github-client',
      client_secret_set: true,
    });
    expect(JSON.stringify(saved)).not.toContain(secret);
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByLabel('GitHub client secret').inputValue()).toBe('');
    expect(await page.getByRole('textbox', { name: 'GitHub client ID' }).inputValue()).toBe(
      'Iv1.github-client',
    );
    await page.context().close();
  });

  it("sets §9's nonce settings from the form: only issued nonces, and Google's skipped nonce check", async () => {
    const page = await signedInPage(browser, baseUrl, s.token, `/console/projects/${s.project.slug}`);
    await page.getByRole('link', { name: app.name, exact: true }).click();
    const issued = page.getByRole('checkbox', {
      name: 'Accept only ID tokens bound to a nonce Tether issued',
    });
    const skip = page.getByRole('checkbox', {
      name: /Accept an ID token's nonce without one in the request/,
    });
    // As the first test left them (through the API): both on, and the form shows it.
    expect(await issued.isChecked()).toBe(true);
    expect(await skip.isChecked()).toBe(true);
    await issued.uncheck();
    await skip.uncheck();
    await save(page);
    let now = await appNow();
    expect(now.require_issued_nonce).toBe(false);
    expect(now.providers.google?.skip_nonce_check).toBe(false);
    await page
      .getByRole('checkbox', { name: 'Accept only ID tokens bound to a nonce Tether issued' })
      .check();
    await save(page);
    now = await appNow();
    expect(now.require_issued_nonce).toBe(true);
    expect(now.providers.google?.skip_nonce_check).toBe(false);
    await page.context().close();
  });

  it('names the mobile apps of verified links (app_links) from the form; a malformed app ID is refused in words and the typed lists stay', async () => {
    const page = await signedInPage(browser, baseUrl, s.token, `/console/projects/${s.project.slug}`);
    await page.getByRole('link', { name: app.name, exact: true }).click();
    const ios = page.getByRole('textbox', { name: 'iOS app IDs' });
    const android = page.getByRole('textbox', { name: 'Android package names' });
    expect(await ios.inputValue()).toBe('');
    await ios.fill('ABCDE12345.com.example.shop\nFGHIJ67890.com.example.shop');
    await android.fill('com.example.shop');
    await save(page);
    expect((await appNow()).app_links).toEqual({
      ios_app_ids: ['ABCDE12345.com.example.shop', 'FGHIJ67890.com.example.shop'],
      android_package_names: ['com.example.shop'],
    });
    expect(await page.getByRole('textbox', { name: 'iOS app IDs' }).inputValue()).toBe(
      'ABCDE12345.com.example.shop\nFGHIJ67890.com.example.shop',
    );

    await page.getByRole('textbox', { name: 'iOS app IDs' }).fill('not-an-app-id');
    await page.getByRole('textbox', { name: 'Android package names' }).fill('com.example.other');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('alert').filter({ hasText: 'Team ID' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'iOS app IDs' }).inputValue()).toBe('not-an-app-id');
    expect(await page.getByRole('textbox', { name: 'Android package names' }).inputValue()).toBe(
      'com.example.other',
    );
    // Nothing changed.
    expect((await appNow()).app_links?.android_package_names).toEqual(['com.example.shop']);
    await page.context().close();
  });
});
