/**
 * The projects and project pages in headless Chromium: a project, a site, a database, a bucket
 * and an auth app created through their forms, each checked through the API; a read member
 * sees them all without a create form.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount, type TestAccount, uniqueName } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { checkPage, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let owner: TestAccount;

beforeAll(async () => {
  owner = await createAccount();
});

describe('projects and a project', { timeout: 120_000 }, () => {
  it('creates a project and its site, database, bucket and auth app from the forms', async () => {
    const page = await signedInPage(browser, baseUrl, owner.token);
    const name = uniqueName('Shop');
    await page.getByRole('textbox', { name: 'Name' }).fill(name);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name, exact: true }).waitFor();
    const { body } = await api(baseUrl, owner.token).get<{ projects: { id: string; name: string }[] }>(
      '/api/v1/projects',
    );
    const project = body.projects.find((p) => p.name === name);
    expect(project).toBeDefined();
    const base = `/api/v1/projects/${project?.id}`;

    const create = async (button: string, fields: Record<string, string>) => {
      const form = page.locator('form', { has: page.getByRole('button', { name: button }) });
      for (const [label, value] of Object.entries(fields))
        await form.getByLabel(label, { exact: true }).fill(value);
      await form.getByRole('button', { name: button }).click();
      await page
        .getByRole('status')
        .filter({ hasText: Object.values(fields)[0] ?? '' })
        .waitFor();
    };
    const site = uniqueName('web');
    const db = uniqueName('db').replace(/-/g, '_');
    const bucket = uniqueName('files');
    const app = uniqueName('mobile');
    await create('Create site', { Slug: site });
    await create('Create database', { Name: db });
    await create('Create bucket', { Name: bucket });
    await create('Create auth app', { 'App ID': app });
    const as = api(baseUrl, owner.token);
    expect(
      (await as.get<{ sites: { slug: string }[] }>(`${base}/sites`)).body.sites.map((x) => x.slug),
    ).toEqual([site]);
    expect(
      (await as.get<{ databases: { name: string }[] }>(`${base}/databases`)).body.databases.map(
        (x) => x.name,
      ),
    ).toEqual([db]);
    expect(
      (await as.get<{ buckets: { name: string }[] }>(`${base}/buckets`)).body.buckets.map((x) => x.name),
    ).toEqual([bucket]);
    expect(
      (await as.get<{ auth_apps: { app_id: string }[] }>(`${base}/auth-apps`)).body.auth_apps.map(
        (x) => x.app_id,
      ),
    ).toEqual([app]);
    for (const link of [site, db, bucket, app])
      expect(await page.getByRole('link', { name: link, exact: true }).count()).toBe(1);
    await checkPage(page, 'project');

    // A refused name says why on the page and creates nothing.
    await page
      .locator('form', { has: page.getByRole('button', { name: 'Create site' }) })
      .getByLabel('Slug')
      .fill(site);
    await page.getByRole('button', { name: 'Create site' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('already exists');
    expect((await as.get<{ sites: unknown[] }>(`${base}/sites`)).body.sites).toHaveLength(1);

    await page.getByRole('link', { name: 'Tether' }).click();
    await page.getByRole('link', { name, exact: true }).waitFor();
    await checkPage(page, 'projects');

    const reader = await createAccount();
    await as.put(`${base}/members/${reader.id}`, { role: 'read' });
    const readerPage = await signedInPage(browser, baseUrl, reader.token, `/console/projects/${project?.id}`);
    for (const link of [site, db, bucket, app])
      expect(await readerPage.getByRole('link', { name: link, exact: true }).count()).toBe(1);
    expect(await readerPage.getByRole('button', { name: /^Create/ }).count()).toBe(0);
    await readerPage.context().close();
    await page.context().close();
  });
});
