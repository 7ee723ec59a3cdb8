/**
 * An auth app's page in headless Chromium: the Access section, Settings (a refused origin is
 * explained beside the field with the documented rules and changes nothing; origins,
 * Google with its native client IDs and the user limit are saved) and Users (disable, delete
 * after Confirm) and the project keys restricted to it, inside the Access section. Every result
 * is checked through the API.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createAuthApp, metadata, type Seeded, type Service, seed } from '../../helpers/connections';
import { checkPage, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let app: Service;

interface AppBody {
  enabled: boolean;
  allowed_origins: string[];
  user_limit: number | null;
  providers: { google?: { enabled: boolean; client_id: string; native_client_ids?: { ios?: string } } };
}

async function appNow(): Promise<AppBody> {
  const res = await s.as.get<{ auth_apps: (AppBody & { id: string })[] }>(
    `/api/v1/projects/${s.project.id}/auth-apps`,
  );
  return res.body.auth_apps.find((a) => a.id === app.id) as AppBody;
}

async function openApp(page: Page): Promise<void> {
  await page.goto(`/console/projects/${s.project.slug}`);
  await page.getByRole('link', { name: app.name, exact: true }).click();
  await page.getByRole('heading', { name: 'Access', exact: true }).waitFor();
}

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  app = await createAuthApp(s.as, s.project.id);
});

describe("an auth app's page", { timeout: 120_000 }, () => {
  it('explains a refused origin beside the field and saves origins, Google with native IDs and the user limit', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    await openApp(page);
    const site = s.sites[0] as { slug: string };
    await expect(page.getByRole('row').filter({ hasText: site.slug }).textContent()).resolves.toContain(
      'client',
    );

    await page.getByRole('textbox', { name: 'Allowed origins' }).fill('myapp:///callback');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toMatch(/Refused[\s\S]*three slashes is invalid/);
    expect(await page.getByRole('textbox', { name: 'Allowed origins' }).inputValue()).toBe(
      'myapp:///callback',
    );
    expect((await appNow()).allowed_origins).toEqual([]);
    await checkPage(page, 'auth-app-origin-refused');

    await page
      .getByRole('textbox', { name: 'Allowed origins' })
      .fill('com.example.app://auth\nhttps://app.example.com');
    await page.getByRole('textbox', { name: 'User limit' }).fill('25');
    await page.getByRole('checkbox', { name: 'Google enabled' }).check();
    await page.getByRole('textbox', { name: 'Google client ID' }).fill('web-client.apps.example');
    await page.getByLabel('Google client secret').fill('google-secret');
    await page.getByRole('textbox', { name: 'Native client ID (iOS)' }).fill('ios-client.apps.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved' }).waitFor();
    const saved = await appNow();
    expect(saved.allowed_origins).toEqual(['com.example.app://auth', 'https://app.example.com']);
    expect(saved.user_limit).toBe(25);
    expect(saved.providers.google).toMatchObject({
      enabled: true,
      client_id: 'web-client.apps.example',
      native_client_ids: { ios: 'ios-client.apps.example' },
    });
    expect(await page.content()).not.toContain('google-secret');
    await page.context().close();
  });

  it('disables a user, then deletes them only after Confirm', async () => {
    const email = `user-${Date.now()}@example.test`;
    await metadata(`insert into auth_users (id, auth_app_id, email) values (gen_random_uuid(), $1, $2)`, [
      app.id,
      email,
    ]);
    const users = () =>
      s.as.get<{ users: { email: string; disabled: boolean }[] }>(
        `/api/v1/projects/${s.project.id}/auth-apps/${app.id}/users`,
      );
    const page = await signedInPage(browser, baseUrl, s.token);
    await openApp(page);
    const row = page.getByRole('row').filter({ hasText: email });
    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').filter({ hasText: 'is disabled' }).waitFor();
    expect((await users()).body.users).toEqual([expect.objectContaining({ email, disabled: true })]);
    await checkPage(page, 'auth-app');

    await page.getByRole('row').filter({ hasText: email }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').waitFor();
    expect((await users()).body.users).toHaveLength(1);
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted' }).waitFor();
    expect((await users()).body.users).toHaveLength(0);
    await page.context().close();
  });

  it("shows each user's last sign-in relative, the exact time on hover, and never for one who has not", async () => {
    const [signedIn, never] = [`seen-${Date.now()}@example.test`, `unseen-${Date.now()}@example.test`];
    const ids: string[] = [];
    for (const email of [signedIn, never]) {
      const rows = await metadata<{ id: string }>(
        `insert into auth_users (id, auth_app_id, email) values (gen_random_uuid(), $1, $2) returning id`,
        [app.id, email],
      );
      ids.push((rows[0] as { id: string }).id);
    }
    // One session begun three hours ago and refreshed an hour ago: the sign-in is its start.
    await metadata(
      `insert into auth_refresh_tokens (id, auth_app_id, user_id, family_id, token_hash, expires_at, created_at)
       select gen_random_uuid(), $1, $2, f.id, md5(random()::text) || n, now() + interval '1 day', now() - (n || ' hours')::interval
       from (select gen_random_uuid() as id) f, (values (3), (1)) as v(n)`,
      [app.id, ids[0]],
    );
    const listed = await s.as.get<{ users: { email: string; last_sign_in_at: string | null }[] }>(
      `/api/v1/projects/${s.project.id}/auth-apps/${app.id}/users`,
    );
    const at = listed.body.users.find((u) => u.email === signedIn)?.last_sign_in_at as string;
    expect(Date.now() - Date.parse(at)).toBeGreaterThan(3 * 3600_000 - 60_000);
    expect(listed.body.users.find((u) => u.email === never)?.last_sign_in_at).toBeNull();

    const page = await signedInPage(browser, baseUrl, s.token);
    await openApp(page);
    const cell = (email: string) =>
      page.getByRole('row').filter({ hasText: email }).locator('td[data-label="Last sign-in"]');
    const time = cell(signedIn).locator('time');
    expect(await time.textContent()).toBe('3 hours ago');
    expect(await time.getAttribute('datetime')).toBe(at);
    expect(await time.getAttribute('title')).toBe(`${at.slice(0, 19).replace('T', ' ')} UTC`);
    expect((await cell(never).textContent())?.trim()).toBe('never');
    await page.context().close();
  });

  it("lists in its Access section the project keys restricted to it, a site's managed key marked", async () => {
    const base = `/api/v1/projects/${s.project.id}`;
    const key = await s.as.post<{ id: string; name: string }>(`${base}/api-keys`, {
      name: 'support-desk',
      capabilities: { auth: [app.id] },
    });
    expect(key.status, key.text).toBe(201);
    const site = s.sites[0] as { id: string; slug: string };
    const raised = await s.as.post(`${base}/sites/${site.id}/connections`, {
      kind: 'auth_app',
      resource_id: app.id,
      level: 'admin',
    });
    expect(raised.status, raised.text).toBe(201);
    const listed = await s.as.get<{ api_keys: { name: string; managed: boolean }[] }>(
      `${base}/auth-apps/${app.id}/access`,
    );
    const managed = listed.body.api_keys.find((k) => k.managed);
    expect(managed).toBeDefined();
    const page = await signedInPage(browser, baseUrl, s.token);
    await openApp(page);
    const access = page.getByRole('region', { name: 'Access', exact: true });
    await expect(access.getByRole('row').filter({ hasText: site.slug }).textContent()).resolves.toContain(
      'admin',
    );
    await expect(access.getByRole('listitem').filter({ hasText: 'support-desk' }).count()).resolves.toBe(1);
    await expect(
      access
        .getByRole('listitem')
        .filter({ hasText: managed?.name ?? '' })
        .textContent(),
    ).resolves.toContain('managed key of a site');
    await page.context().close();
  });
});
