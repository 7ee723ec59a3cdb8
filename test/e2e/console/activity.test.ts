/**
 * The project's Activity page in headless Chromium: reached by the project page's `Activity`
 * link; a change made in the console and one made through the API each appear once, newest
 * first, with who made it, how it came in and a relative time whose exact time shows on hover;
 * the Site and Action filters narrow the list through the API's own filters.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createDatabase, type Seeded, seed } from '../../helpers/connections';
import { checkPage, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let web: { id: string; slug: string };
let other: { id: string; slug: string };
let db: { id: string; name: string };
let email: string;

beforeAll(async () => {
  s = await seed(baseUrl, 2);
  web = s.sites[0] as { id: string; slug: string };
  other = s.sites[1] as { id: string; slug: string };
  db = await createDatabase(s.as, s.project.id);
  email = (await s.as.get<{ email: string }>('/api/v1/account')).body.email;
  const connect = await s.as.post(`/api/v1/projects/${s.project.id}/sites/${web.id}/connections`, {
    kind: 'database',
    resource_id: db.id,
    level: 'connect',
  });
  expect(connect.status, connect.text).toBeLessThan(300);
});

describe('the Activity page', { timeout: 120_000 }, () => {
  it('lists console and API changes with who, how and when, and filters by site and action', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    // A change made in the console: web's level on the database, from its Connections tab.
    await page.goto(`/console/projects/${s.project.slug}/sites/${web.id}/connections`);
    const row = page.getByRole('region', { name: 'Connections', exact: true }).getByRole('row').filter({
      hasText: db.name,
    });
    await row.getByRole('combobox', { name: 'Level' }).selectOption('read-only');
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'read-only' }).waitFor();

    await page.goto(`/console/projects/${s.project.slug}`);
    await page.getByRole('link', { name: 'Activity', exact: true }).click();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    const events = page.getByRole('region', { name: 'Changes' }).getByRole('row');
    const level = events.filter({ hasText: 'connection.level' });
    expect(await level.count()).toBe(1);
    const levelText = (await level.textContent()) ?? '';
    expect(levelText).toContain(`changed the level of ${web.slug} → ${db.name} from connect to read-only`);
    expect(levelText).toContain(email);
    expect(levelText).toContain('console');
    expect(levelText).toContain(web.slug);
    // Relative time, exact time on hover (the title) and in datetime.
    const time = level.locator('time');
    expect(await time.textContent()).toMatch(/just now|minute/);
    expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // The API's change shows its way in as API; newest first.
    const created = events.filter({ hasText: 'connection.create' });
    expect(await created.count()).toBeGreaterThanOrEqual(1);
    expect((await created.first().textContent()) ?? '').toContain('API');
    const order = await events.evaluateAll((rows) => rows.map((r) => r.textContent ?? ''));
    const at = (text: string) => order.findIndex((r) => r.includes(text));
    expect(at('connection.level')).toBeLessThan(at('connection.create'));
    await checkPage(page, 'activity');

    // Narrowed to the other site: none of web's events.
    await page.getByRole('combobox', { name: 'Site' }).selectOption(other.slug);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('site') === other.slug);
    expect(await events.filter({ hasText: 'connection.level' }).count()).toBe(0);
    // Narrowed to connection changes of every site: no site.create rows.
    await page.getByRole('combobox', { name: 'Site' }).selectOption('');
    await page.getByRole('combobox', { name: 'Action' }).selectOption('connection');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('action') === 'connection');
    expect(await events.filter({ hasText: 'connection.level' }).count()).toBe(1);
    expect(await events.filter({ hasText: 'site.create' }).count()).toBe(0);
    await page.context().close();
  });
});
