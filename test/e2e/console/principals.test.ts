/**
 * External principals in a database page's Access section in headless Chromium: created with
 * name, sources, expiry and level (the secret shown once), listed without it, and revoked only
 * after Confirm.
 * Every result is checked through the API.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createDatabase, type Seeded, type Service, seed } from '../../helpers/connections';
import { checkPage, openService, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let db: Service;

beforeAll(async () => {
  s = await seed(baseUrl, 2);
  db = await createDatabase(s.as, s.project.id);
});

describe('external principals', { timeout: 120_000 }, () => {
  it('creates a database principal whose password is shown once, and revokes it after Confirm', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    await openService(page, s.project.slug, db.name);
    // The principals are part of the Access section (docs/connections.md: "plus external principals").
    const access = page.getByRole('region', { name: 'Access', exact: true });
    const form = access.locator('form', { has: page.getByRole('button', { name: 'Create principal' }) });
    await form.getByRole('textbox', { name: 'Name' }).fill('reporting');
    await form.getByRole('textbox', { name: 'Allowed sources' }).fill('203.0.113.0/24');
    await form
      .getByRole('textbox', { name: 'Expires' })
      .fill(new Date(Date.now() + 30 * 86400_000).toISOString());
    await form.getByRole('combobox', { name: 'Level' }).selectOption('read-only');
    await form.getByRole('button', { name: 'Create principal' }).click();
    await page.getByRole('heading', { name: /not shown again/ }).waitFor();
    const listed = await s.as.get<{ principals: { id: string; name: string; username: string }[] }>(
      `/api/v1/projects/${s.project.id}/databases/${db.id}/principals`,
    );
    const principal = listed.body.principals.find((p) => p.name === 'reporting');
    expect(principal?.username).toMatch(/^c_[a-z0-9]{8}$/);
    expect(await page.content()).toContain(principal?.username);
    await checkPage(page, 'principal-created');

    await openService(page, s.project.slug, db.name);
    const row = page
      .getByRole('region', { name: 'Access', exact: true })
      .getByRole('row')
      .filter({ hasText: 'reporting' });
    expect(await page.content()).not.toMatch(/password/i);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').waitFor();
    expect(
      (
        await s.as.get<{ principals: unknown[] }>(
          `/api/v1/projects/${s.project.id}/databases/${db.id}/principals`,
        )
      ).body.principals,
    ).toHaveLength(1);
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Revoked' }).waitFor();
    expect(
      (
        await s.as.get<{ principals: unknown[] }>(
          `/api/v1/projects/${s.project.id}/databases/${db.id}/principals`,
        )
      ).body.principals,
    ).toHaveLength(0);
    await page.context().close();
  });
});
