/**
 * Stopping and starting a database, and deleting a site, a database and a bucket from their
 * console pages in headless Chromium. Every deletion opens a dialog: Cancel and the open dialog
 * change nothing, Confirm deletes. Every result is checked through the API.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createBucket, createDatabase, createSite, type Seeded, seed } from '../../helpers/connections';
import { checkPage, confirmationDialog, openService, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;

const listed = async (collection: 'sites' | 'databases' | 'buckets') => {
  const res = await s.as.get<Record<string, { id: string; status?: string }[]>>(
    `/api/v1/projects/${s.project.id}/${collection}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body[collection] ?? [];
};
const ids = async (collection: 'sites' | 'databases' | 'buckets') =>
  (await listed(collection)).map((x) => x.id);

beforeAll(async () => {
  s = await seed(baseUrl, 1);
});

describe('stop, start and delete', { timeout: 120_000 }, () => {
  it('stops and starts a database from its page', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const status = async () => (await listed('databases')).find((d) => d.id === db.id)?.status;
    const page = await signedInPage(browser, baseUrl, s.token);
    await openService(page, s.project.slug, db.name);
    await page.getByRole('button', { name: 'Stop database' }).click();
    await page.getByRole('status').filter({ hasText: 'The database is stopped.' }).waitFor();
    expect(await status()).toBe('stopped');
    await expect(page.getByText(/PostgreSQL · stopped/).count()).resolves.toBe(1);
    await checkPage(page, 'database-stopped');
    await page.getByRole('button', { name: 'Start database' }).click();
    await page.getByRole('status').filter({ hasText: 'The database is running.' }).waitFor();
    expect(await status()).toBe('running');
    expect(await page.getByRole('button', { name: 'Stop database' }).count()).toBe(1);
    await page.context().close();
  });

  it('deletes a site only after Confirm, with its connections', async () => {
    const site = await createSite(s.as, s.project.id);
    const page = await signedInPage(browser, baseUrl, s.token);
    await page.goto(`/console/projects/${s.project.slug}`);
    await page.getByRole('link', { name: site.slug, exact: true }).click();
    await page.getByRole('button', { name: 'Delete site' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Cancel' }).click();
    expect(await ids('sites')).toContain(site.id);
    await page.getByRole('button', { name: 'Delete site' }).click();
    const dialog = await confirmationDialog(page);
    await expect(dialog.textContent()).resolves.toContain(site.slug);
    expect(await ids('sites')).toContain(site.id);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted the site.' }).waitFor();
    expect(await ids('sites')).not.toContain(site.id);
    expect(await page.getByRole('link', { name: site.slug, exact: true }).count()).toBe(0);
    const gone = await s.as.get(`/api/v1/projects/${s.project.id}/sites/${site.id}/connections`);
    expect(gone.status).toBe(404);
    await page.context().close();
  });

  for (const what of ['database', 'bucket'] as const) {
    it(`deletes a ${what} only after Confirm`, async () => {
      const collection = what === 'database' ? 'databases' : 'buckets';
      const service =
        what === 'database'
          ? await createDatabase(s.as, s.project.id)
          : await createBucket(s.as, s.project.id);
      const siteId = s.sites[0]?.id as string;
      const connected = await s.as.post(`/api/v1/projects/${s.project.id}/sites/${siteId}/connections`, {
        kind: what,
        resource_id: service.id,
      });
      expect(connected.status, connected.text).toBe(201);
      const connections = async () =>
        (
          await s.as.get<{ connections: { resource_id: string }[] }>(
            `/api/v1/projects/${s.project.id}/sites/${siteId}/connections`,
          )
        ).body.connections.filter((c) => c.resource_id === service.id);

      const page = await signedInPage(browser, baseUrl, s.token);
      await openService(page, s.project.slug, service.name);
      await page.getByRole('button', { name: `Delete ${what}` }).click();
      await (await confirmationDialog(page)).getByRole('button', { name: 'Cancel' }).click();
      expect(await ids(collection)).toContain(service.id);
      await page.getByRole('button', { name: `Delete ${what}` }).click();
      const dialog = await confirmationDialog(page);
      await expect(dialog.textContent()).resolves.toContain(service.name);
      expect(await ids(collection)).toContain(service.id);
      expect(await connections()).toHaveLength(1);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('status').filter({ hasText: 'Deleted.' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/projects/${s.project.slug}`);
      expect(await ids(collection)).not.toContain(service.id);
      expect(await connections()).toEqual([]);
      expect(await page.getByRole('link', { name: service.name, exact: true }).count()).toBe(0);
      await page.context().close();
    });
  }
});
