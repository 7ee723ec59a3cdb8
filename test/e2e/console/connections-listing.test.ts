/**
 * What the Connections tab lists, in headless Chromium, against the API's own listing: each
 * connection's row carries its created time (a `time` element with the API's `created_at`) and
 * its variable names; the available services' rows name the variables connecting would add.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createBucket, createDatabase, type Seeded, seed } from '../../helpers/connections';
import { signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;

interface Listing {
  connections: Array<{
    resource_name: string;
    kind: string;
    level: string;
    env_names: string[];
    created_at: string;
  }>;
  available: Array<{ resource_name: string; kind: string; env_names: string[] }>;
}

beforeAll(async () => {
  s = await seed(baseUrl, 2);
});

describe('the Connections tab lists', { timeout: 120_000 }, () => {
  it("each connection's created time and variables, and what connecting each available service would add", async () => {
    const site = s.sites[0] as { id: string; slug: string };
    const db = await createDatabase(s.as, s.project.id);
    const bucket = await createBucket(s.as, s.project.id);
    const path = `/api/v1/projects/${s.project.id}/sites/${site.id}/connections`;
    expect((await s.as.post(path, { kind: 'database', resource_id: db.id })).status).toBe(201);
    const listing = (await s.as.get<Listing>(path)).body;
    const conn = listing.connections.find((c) => c.resource_name === db.name);
    const offer = listing.available.find((a) => a.resource_name === bucket.name);
    expect(conn && offer).toBeTruthy();

    const page = await signedInPage(
      browser,
      baseUrl,
      s.token,
      `/console/projects/${s.project.slug}/sites/${site.id}/connections`,
    );
    const connections = page.getByRole('region', { name: 'Connections', exact: true });
    const row = connections.getByRole('row').filter({ hasText: db.name });
    await row.waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.locator('time').getAttribute('datetime')).toBe(conn?.created_at);
    const rowText = (await row.textContent()) ?? '';
    expect(rowText).toContain(conn?.kind);
    expect(rowText).toContain(conn?.level);
    for (const name of conn?.env_names ?? []) expect(rowText).toContain(name);

    const available = page.getByRole('region', { name: 'Available services', exact: true });
    const offered = available.getByRole('row').filter({ hasText: bucket.name });
    expect(await offered.count()).toBe(1);
    const offeredText = (await offered.textContent()) ?? '';
    expect(offer?.env_names.length).toBeGreaterThan(0);
    for (const name of offer?.env_names ?? []) expect(offeredText).toContain(name);
    expect(await available.getByRole('row').filter({ hasText: db.name }).count()).toBe(0);
    await page.context().close();
  });
});
