/**
 * Database and bucket pages in headless Chromium: the Access section lists every site with its
 * level or `not connected` and connects, changes and disconnects from there; external
 * principals are created (secret shown once) and revoked after a confirmation; an admin-only
 * control is absent for a write member. Every result is checked through the API.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { createBucket, createDatabase, type Seeded, type Service, seed } from '../../helpers/connections';
import { checkPage, openService, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
/** A form's change lands after a redirect and the outside system's work; the machine is shared and slow. */
const POLL = { timeout: 20_000, interval: 200 };
const browser = chromiumForFile();
let s: Seeded;
let db: Service;
let bucket: Service;

async function levelOf(siteId: string, resourceId: string): Promise<string | undefined> {
  const res = await s.as.get<{ connections: { resource_id: string; level: string }[] }>(
    `/api/v1/projects/${s.project.id}/sites/${siteId}/connections`,
  );
  return res.body.connections.find((c) => c.resource_id === resourceId)?.level;
}

beforeAll(async () => {
  s = await seed(baseUrl, 2);
  db = await createDatabase(s.as, s.project.id);
  bucket = await createBucket(s.as, s.project.id);
});

describe('database and bucket pages', { timeout: 120_000 }, () => {
  it("the database's Access section connects a site, changes its level and disconnects it after Confirm", async () => {
    const [a, b] = s.sites as [{ id: string; slug: string }, { id: string; slug: string }];
    const page = await signedInPage(browser, baseUrl, s.token);
    await openService(page, s.project.slug, db.name);
    const rowA = page.getByRole('row').filter({ hasText: a.slug });
    const rowB = page.getByRole('row').filter({ hasText: b.slug });
    await expect(rowA.textContent()).resolves.toContain('not connected');
    await expect(rowB.textContent()).resolves.toContain('not connected');

    await rowA.getByRole('combobox', { name: 'Level' }).selectOption('read-only');
    await rowA.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('status').filter({ hasText: 'connected at read-only' }).waitFor();
    expect(await levelOf(a.id, db.id)).toBe('read-only');
    expect(await levelOf(b.id, db.id)).toBeUndefined();
    await expect(rowA.getByRole('cell').nth(1).textContent()).resolves.toBe('read-only');

    await rowA.getByRole('combobox', { name: 'Level' }).selectOption('connect');
    // A database's level change ends the app's open sessions: it asks first, and says so.
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain('open database sessions');
    expect(await levelOf(a.id, db.id)).toBe('read-only');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // The change submits the row's form; the page it comes back to says so.
    await page.getByRole('status').filter({ hasText: 'connected at connect' }).waitFor();
    await expect.poll(() => levelOf(a.id, db.id), POLL).toBe('connect');
    await checkPage(page, 'database');

    await page
      .getByRole('row')
      .filter({ hasText: a.slug })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    await page.getByRole('dialog').waitFor();
    expect(await levelOf(a.id, db.id)).toBe('connect');
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => levelOf(a.id, db.id), POLL).toBeUndefined();
    await page.context().close();
  });

  it("the bucket's Access section lists every site with its level", async () => {
    const [a, b] = s.sites as [{ id: string; slug: string }, { id: string; slug: string }];
    await s.as.post(`/api/v1/projects/${s.project.id}/sites/${b.id}/connections`, {
      kind: 'bucket',
      resource_id: bucket.id,
      level: 'read',
    });
    const page = await signedInPage(browser, baseUrl, s.token);
    await openService(page, s.project.slug, bucket.name);
    await expect(page.getByRole('row').filter({ hasText: b.slug }).textContent()).resolves.toContain('read');
    await expect(page.getByRole('row').filter({ hasText: a.slug }).textContent()).resolves.toContain(
      'not connected',
    );
    await checkPage(page, 'bucket');
    await page.context().close();
  });

  it('a write member gets the Access controls but no admin-only principal or credential controls', async () => {
    const writer = await createAccount();
    await s.as.put(`/api/v1/projects/${s.project.id}/members/${writer.id}`, { role: 'write' });
    const page = await signedInPage(browser, baseUrl, writer.token);
    await openService(page, s.project.slug, db.name);
    expect(await page.getByRole('button', { name: 'Connect' }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Create principal' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Rotate credential' }).count()).toBe(0);
    await page.context().close();
  });
});
