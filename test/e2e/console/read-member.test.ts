/**
 * A read member on the database, bucket, auth-app and project pages in headless Chromium
 * (the console's Roles): every page shows what it holds (the Access section's sites with their
 * levels, the services) but no change control at all: the only button is `Sign out`, and no
 * field takes input. The server refuses such a change anyway (connections.test.ts, the API's
 * authorization matrices).
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import {
  createAuthApp,
  createBucket,
  createDatabase,
  type Seeded,
  type Service,
  seed,
} from '../../helpers/connections';
import { signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let services: Service[];
let readerToken: string;

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  services = [
    await createDatabase(s.as, s.project.id),
    await createBucket(s.as, s.project.id),
    await createAuthApp(s.as, s.project.id),
  ];
  const reader = await createAccount();
  const res = await s.as.put(`/api/v1/projects/${s.project.id}/members/${reader.id}`, { role: 'read' });
  expect(res.status).toBe(200);
  readerToken = reader.token;
});

/** The names of the page's buttons, and how many fields take input. */
async function controls(page: Page): Promise<{ buttons: string[]; editable: number }> {
  const buttons = await page
    .getByRole('button')
    .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()))
    // A `Copy …` button only puts a value shown on the page on the clipboard: not a change control.
    .then((names) => names.filter((name) => !name.startsWith('Copy ')));
  const editable = await page
    .locator('input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])')
    .count();
  return { buttons, editable };
}

describe('a read member', { timeout: 120_000 }, () => {
  it('sees the project, its services and their Access sections, with no change control', async () => {
    const site = s.sites[0] as { slug: string };
    const page = await signedInPage(browser, baseUrl, readerToken, `/console/projects/${s.project.slug}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    for (const service of services)
      expect(await page.getByRole('link', { name: service.name, exact: true }).count()).toBe(1);
    expect(await controls(page)).toEqual({ buttons: ['Sign out'], editable: 0 });

    for (const service of services) {
      await page.goto(`/console/projects/${s.project.slug}`);
      await page.getByRole('link', { name: service.name, exact: true }).click();
      const access = page.getByRole('region', { name: 'Access', exact: true });
      await access.waitFor();
      // The project's only site was connected to each new service at once, at its default level.
      await expect(access.getByRole('row').filter({ hasText: site.slug }).textContent()).resolves.toMatch(
        /read-write|connect|client/,
      );
      expect(await controls(page), service.name).toEqual({ buttons: ['Sign out'], editable: 0 });
    }
    await page.context().close();
  });
});
