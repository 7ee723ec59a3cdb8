/**
 * The project page's Health card in headless Chromium: a site whose live patches fail and a
 * rotation still delivering are listed with their state, each linking to the site's Delivery
 * tab (where Retry and the rotation are); a stopped database links to its page; with nothing
 * wrong the card says so.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { metadata, type SeededProject, type Service } from '../../helpers/connections';
import { checkPage, seedConsoleProject, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: SeededProject;
let db: Service;

beforeAll(async () => {
  s = (await seedConsoleProject(baseUrl)).p;
  db = s.databases[0] as Service;
});

/** The Health card's item whose text matches `text`. */
const item = (page: Awaited<ReturnType<typeof signedInPage>>, text: RegExp) =>
  page
    .locator('section.card', { has: page.locator('#health-heading') })
    .getByRole('listitem')
    .filter({ hasText: text });

describe('the Health card', { timeout: 120_000 }, () => {
  it('says all is well, then lists failing patches and a rotation with links to the Delivery tab', async () => {
    const page = await signedInPage(browser, baseUrl, s.token, `/console/projects/${s.project.slug}`);
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Health' }) });
    await expect(card.textContent()).resolves.toContain(
      'no live patch is failing and no rotation is under way',
    );

    const rotated = await s.as.post(
      `/api/v1/projects/${s.project.id}/sites/${s.site.id}/connections/database/${db.id}/rotate`,
    );
    expect(rotated.status, rotated.text).toBe(204);
    // A patch of its own that failed a try (no queue message names it, so nothing moves it).
    await metadata(
      `insert into deliveries (id, kind, project_id, target_id, reason, status, attempts, last_error)
       values (gen_random_uuid(), 'runtime_patch', $1, $2, 'variables', 'pending', 2, 'webhook answered 502')`,
      [s.project.id, s.site.id],
    );
    await page.reload();
    const delivery = `/console/projects/${s.project.slug}/sites/${s.site.id}/delivery`;

    const failing = item(page, new RegExp(`Site ${s.site.slug}: 1 patch retrying`));
    await expect(failing.getByRole('link').getAttribute('href')).resolves.toBe(delivery);
    await expect(failing.textContent()).resolves.toContain('webhook answered 502');
    await expect(failing.locator('.badge').textContent()).resolves.toBe('failed');

    const rotation = item(page, new RegExp(`Rotating ${s.site.slug}'s database credential for ${db.name}`));
    await expect(rotation.getByRole('link').getAttribute('href')).resolves.toBe(delivery);
    await expect(rotation.locator('.badge').textContent()).resolves.toMatch(/^(delivering|draining)$/);
    await checkPage(page, 'project-health');

    await failing.getByRole('link').click();
    await page.waitForURL((url) => url.pathname === delivery);
    await page.getByRole('heading', { name: `Site ${s.site.slug}` }).waitFor();
    await page.context().close();
  });

  it('links a stopped database to its page', async () => {
    const stopped = await s.as.post(`/api/v1/projects/${s.project.id}/databases/${db.id}/stop`);
    expect(stopped.status, stopped.text).toBe(200);
    const page = await signedInPage(browser, baseUrl, s.token, `/console/projects/${s.project.slug}`);
    const entry = item(page, new RegExp(`Database ${db.name}`));
    await expect(entry.getByRole('link').getAttribute('href')).resolves.toBe(
      `/console/projects/${s.project.slug}/databases/${db.id}`,
    );
    await expect(entry.locator('.badge').textContent()).resolves.toBe('stopped');
    await page.context().close();
  });
});
