/**
 * The Connections tab in headless Chromium, driven by role and accessible name: connect with a
 * level, raise to admin and disconnect behind a dialog (nothing changes before Confirm), the
 * same without script (a confirmation page), and a read member without change controls. Every
 * result is checked through the API.
 */
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { createAuthApp, createDatabase, type Seeded, type Service, seed } from '../../helpers/connections';
import { ARTIFACTS_DIR, checkPage, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
/** A form's change lands after a redirect and the outside system's work; the machine is shared and slow. */
const POLL = { timeout: 20_000, interval: 200 };
const browser = chromiumForFile();
let s: Seeded;
let db: Service;
let app: Service;

interface Conn {
  kind: string;
  resource_id: string;
  level: string;
}

async function connectionsOf(siteId: string): Promise<Conn[]> {
  const res = await s.as.get<{ connections: Conn[] }>(
    `/api/v1/projects/${s.project.id}/sites/${siteId}/connections`,
  );
  return res.body.connections;
}

const siteA = () => s.sites[0] as { id: string; slug: string };

async function openConnections(page: Page): Promise<void> {
  await page.goto(`/console/projects/${s.project.slug}`);
  await page.getByRole('link', { name: siteA().slug, exact: true }).click();
  await page.getByRole('link', { name: 'Connections', exact: true }).click();
  await page.getByRole('heading', { name: 'Connections', exact: true }).waitFor();
}

beforeAll(async () => {
  s = await seed(baseUrl, 2);
  db = await createDatabase(s.as, s.project.id);
  app = await createAuthApp(s.as, s.project.id);
});

describe('the Connections tab', { timeout: 120_000 }, () => {
  it('connects with a level, raises to admin and disconnects only after Confirm', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    await openConnections(page);
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Connect', exact: true }) });
    await form.getByRole('combobox', { name: 'Service' }).selectOption({ label: db.name });
    await form.getByRole('combobox', { name: 'Level' }).selectOption('read-only');
    await form.getByRole('button', { name: 'Connect' }).click();
    const dbRow = page.getByRole('row').filter({ hasText: db.name });
    await expect.poll(() => dbRow.count(), POLL).toBe(1);
    await expect(dbRow.textContent()).resolves.toMatch(/database[\s\S]*read-only[\s\S]*DATABASE_URL/);
    expect(await connectionsOf(siteA().id)).toEqual([
      expect.objectContaining({ resource_id: db.id, level: 'read-only' }),
    ]);

    await form.getByRole('combobox', { name: 'Service' }).selectOption({ label: app.name });
    await form.getByRole('button', { name: 'Connect' }).click();
    const appRow = page.getByRole('row').filter({ hasText: app.name });
    await expect.poll(() => appRow.count(), POLL).toBe(1);
    // The row names the kind as people say it (never the API's raw auth_app) and the default level.
    await expect(appRow.getByRole('cell', { name: 'auth app', exact: true }).count()).resolves.toBe(1);
    await expect(appRow.textContent()).resolves.toMatch(/auth app[\s\S]*client/);
    await expect(appRow.textContent()).resolves.not.toContain('auth_app');
    await checkPage(page, 'site-connections');
    await page.screenshot({ path: resolve(ARTIFACTS_DIR, 'readme-connections.png') });

    // A raise to admin asks first; Cancel leaves the level as it was.
    await appRow.getByRole('combobox', { name: 'Level' }).selectOption('admin');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect((await connectionsOf(siteA().id)).find((c) => c.resource_id === app.id)?.level).toBe('client');
    await checkPage(page, 'confirm-raise-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await appRow.getByRole('combobox', { name: 'Level' }).inputValue()).toBe('client');
    await appRow.getByRole('combobox', { name: 'Level' }).selectOption('admin');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${app.name} is now at admin.` })
      .waitFor();
    await expect
      .poll(async () => (await connectionsOf(siteA().id)).find((c) => c.resource_id === app.id)?.level, POLL)
      .toBe('admin');

    // Disconnect asks first too.
    await page
      .getByRole('row')
      .filter({ hasText: db.name })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    await dialog.waitFor();
    expect((await connectionsOf(siteA().id)).some((c) => c.resource_id === db.id)).toBe(true);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(async () => (await connectionsOf(siteA().id)).some((c) => c.resource_id === db.id), POLL)
      .toBe(false);
    await expect
      .poll(
        () =>
          page
            .getByRole('row')
            .filter({ hasText: db.name })
            .getByRole('button', { name: 'Disconnect' })
            .count(),
        POLL,
      )
      .toBe(0);
    await page.context().close();
  });

  it('without script, a disconnect goes through a confirmation page', async () => {
    const site = s.sites[1] as { id: string; slug: string };
    await s.as.post(`/api/v1/projects/${s.project.id}/sites/${site.id}/connections`, {
      kind: 'database',
      resource_id: db.id,
    });
    const context = await browser.newContext({ baseURL: baseUrl, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`/console/projects/${s.project.slug}/sites/${site.id}/connections`);
    await page.getByLabel('Account token').fill(s.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: db.name })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // (No axe scan here: it runs as script, which this context has off; the JS dialog was scanned above.)
    await page.screenshot({ path: resolve(ARTIFACTS_DIR, 'confirm-disconnect-no-js-1280.png') });
    expect((await connectionsOf(site.id)).some((c) => c.resource_id === db.id)).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Connections', exact: true }).waitFor();
    expect((await connectionsOf(site.id)).some((c) => c.resource_id === db.id)).toBe(true);
    await page
      .getByRole('row')
      .filter({ hasText: db.name })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Disconnected' }).waitFor();
    expect((await connectionsOf(site.id)).some((c) => c.resource_id === db.id)).toBe(false);
    await context.close();
  });

  it('a read member sees the connections but no change controls, and the server refuses a change anyway', async () => {
    const reader = await createAccount();
    expect(
      (await s.as.put(`/api/v1/projects/${s.project.id}/members/${reader.id}`, { role: 'read' })).status,
    ).toBe(200);
    const page = await signedInPage(
      browser,
      baseUrl,
      reader.token,
      `/console/projects/${s.project.slug}/sites/${siteA().id}/connections`,
    );
    const appRow = page.getByRole('row').filter({ hasText: app.name });
    await expect(appRow.textContent()).resolves.toContain('admin');
    expect(await page.getByRole('button', { name: 'Connect' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Disconnect' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Level' }).count()).toBe(0);
    // A hand-made post with the reader's own valid form token is refused by the API's role check.
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const res = await page.request.post(
      `/console/projects/${s.project.slug}/sites/${siteA().id}/connections/disconnect`,
      {
        form: { _csrf: csrf, kind: 'auth_app', resource_id: app.id, confirm: 'yes' },
        headers: { origin: baseUrl },
      },
    );
    expect(res.status()).toBe(200);
    expect(await res.text()).toContain('needs the write role');
    expect((await connectionsOf(siteA().id)).some((c) => c.resource_id === app.id)).toBe(true);
    await page.context().close();
  });
});
