/**
 * A site's Variables and Deploys tabs in headless Chromium: user variables saved as the API's
 * full map, derived values hidden until a writer reveals them (and never sent to a reader),
 * deploy and rollback. Every result is checked through the API.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { createDatabase, type Seeded, seed } from '../../helpers/connections';
import { checkPage, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let site: { id: string; slug: string };
let sitePath: string;

async function openTab(page: Page, tab: 'Variables' | 'Deploys'): Promise<void> {
  await page.goto(`/console/projects/${s.project.slug}`);
  await page.getByRole('link', { name: site.slug, exact: true }).click();
  await page.getByRole('link', { name: tab, exact: true }).click();
  await page
    .getByRole('heading', { name: tab === 'Variables' ? 'Effective variables' : 'Deploys' })
    .waitFor();
}

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  site = s.sites[0] as { id: string; slug: string };
  sitePath = `/api/v1/projects/${s.project.id}/sites/${site.id}`;
  await createDatabase(s.as, s.project.id); // the only site is connected at once
});

describe('the Variables and Deploys tabs', { timeout: 120_000 }, () => {
  it('saves user variables and reveals a derived value only on request', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    await openTab(page, 'Variables');
    await page.getByRole('textbox', { name: 'Variables' }).fill('FOO=bar\nGREETING=hello = world');
    await page.getByRole('button', { name: 'Save variables' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const saved = await s.as.get<{ vars: Record<string, string> }>(`${sitePath}/env`);
    expect(saved.body.vars).toEqual({ FOO: 'bar', GREETING: 'hello = world' });

    const effective = await s.as.get<{ vars: Record<string, string> }>(`${sitePath}/env/effective`);
    const url = effective.body.vars.DATABASE_URL as string;
    expect(url).toMatch(/^postgres/);
    const row = page.getByRole('row').filter({ has: page.getByText('DATABASE_URL', { exact: true }) });
    const value = row.getByText(url, { exact: true });
    expect(await value.isVisible()).toBe(false);
    await page.getByText('Reveal DATABASE_URL', { exact: true }).click();
    expect(await value.isVisible()).toBe(true);
    await checkPage(page, 'site-variables');
    await page.context().close();
  });

  it('a read member sees variable names only: no value reaches the page and no change control shows', async () => {
    const reader = await createAccount();
    await s.as.put(`/api/v1/projects/${s.project.id}/members/${reader.id}`, { role: 'read' });
    const page = await signedInPage(browser, baseUrl, reader.token);
    await openTab(page, 'Variables');
    // The name as shown (a long name carries <wbr> break points in the markup).
    expect(await page.getByText('DATABASE_URL', { exact: true }).count()).toBeGreaterThan(0);
    const html = await page.content();
    const effective = await s.as.get<{ vars: Record<string, string> }>(`${sitePath}/env/effective`);
    expect(html).not.toContain(effective.body.vars.DATABASE_URL);
    expect(await page.getByRole('button', { name: 'Save variables' }).count()).toBe(0);
    await openTab(page, 'Deploys');
    expect(await page.getByRole('button', { name: 'Deploy', exact: true }).count()).toBe(0);
    await page.context().close();
  });

  it('deploys, then rolls back to that deploy', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    await openTab(page, 'Deploys');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Deployed' }).waitFor();
    const first = await s.as.get<{ deploys: { id: string; env_names: string[] }[] }>(`${sitePath}/deploys`);
    expect(first.body.deploys).toHaveLength(1);
    expect(first.body.deploys[0]?.env_names).toContain('DATABASE_URL');
    await page.getByRole('button', { name: 'Roll back' }).click();
    await page.getByRole('status').filter({ hasText: 'Rolled back' }).waitFor();
    const after = await s.as.get<{ deploys: { id: string; rollback_of: string | null }[] }>(
      `${sitePath}/deploys`,
    );
    expect(after.body.deploys).toHaveLength(2);
    expect(after.body.deploys[0]?.rollback_of).toBe(first.body.deploys[0]?.id);
    expect(await page.getByRole('row').count()).toBe(3);
    await checkPage(page, 'site-deploys');
    await page.context().close();
  });
});
