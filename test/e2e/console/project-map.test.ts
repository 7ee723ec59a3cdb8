/**
 * The project page's map in headless Chromium: one row per site, one column per service, each
 * connection's level in its cell as a link to the site's connections, `not connected` elsewhere.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createBucket, createDatabase, type Seeded, seed } from '../../helpers/connections';
import { checkPage, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;

beforeAll(async () => {
  s = await seed(baseUrl, 2);
});

describe('the project map', { timeout: 120_000 }, () => {
  it('shows each site × service with its level, each cell a link to the connection', async () => {
    const [a, b] = s.sites as [{ id: string; slug: string }, { id: string; slug: string }];
    const db = await createDatabase(s.as, s.project.id);
    const bucket = await createBucket(s.as, s.project.id);
    const connect = (site: string, body: Record<string, string>) =>
      s.as.post(`/api/v1/projects/${s.project.id}/sites/${site}/connections`, body);
    expect((await connect(a.id, { kind: 'database', resource_id: db.id, level: 'read-only' })).status).toBe(
      201,
    );
    expect((await connect(b.id, { kind: 'bucket', resource_id: bucket.id, level: 'read' })).status).toBe(201);

    const page = await signedInPage(browser, baseUrl, s.token, `/console/projects/${s.project.slug}`);
    const map = page.getByRole('region', { name: 'Project map' });
    const headers = await map.getByRole('columnheader').allTextContents();
    expect(headers.join('|')).toContain(db.name);
    expect(headers.join('|')).toContain(bucket.name);
    const rowA = map
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: a.slug, exact: true }) });
    const rowB = map
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: b.slug, exact: true }) });
    const cell = async (row: typeof rowA, column: number) =>
      ((await row.getByRole('cell').nth(column).textContent()) ?? '').trim();
    const dbColumn = headers.findIndex((h) => h.includes(db.name)) - 1;
    const bucketColumn = headers.findIndex((h) => h.includes(bucket.name)) - 1;
    expect(await cell(rowA, dbColumn)).toBe('read-only');
    expect(await cell(rowA, bucketColumn)).toContain('not connected');
    expect(await cell(rowB, bucketColumn)).toBe('read');
    await rowA.getByRole('link', { name: 'read-only' }).click();
    await page.waitForURL((url) => url.pathname.endsWith(`/sites/${a.id}/connections`));
    await page.goto(`/console/projects/${s.project.slug}`);
    await checkPage(page, 'project');
    await page.context().close();
  });
});
