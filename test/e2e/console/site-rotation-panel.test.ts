/**
 * The Delivery tab's rotation panel in headless Chromium (docs/contract.md §14): after a graceful
 * rotate the connection shows `delivering` with the deadline the API gives; once its patch is
 * live it shows `draining` with the old login's open sessions as the reconciler last recorded
 * them; after an immediate rotate (done) the panel says no rotation is in progress.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../../helpers/browser';
import { createDatabase, metadata, type Service, seed } from '../../helpers/connections';
import { checkPage, signedInPage } from '../../helpers/console';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

describe('the rotation panel of the Delivery tab', { timeout: 120_000 }, () => {
  it('shows a rotation delivering, then draining with its old sessions and deadline, and none once done', async () => {
    const baseUrl = inject('baseUrl');
    const s = await seed(baseUrl, 1);
    const db: Service = await createDatabase(s.as, s.project.id);
    const site = s.sites[0] as { id: string; slug: string };
    const conn = `/api/v1/projects/${s.project.id}/sites/${site.id}/connections/database/${db.id}`;
    const tab = `/console/projects/${s.project.slug}/sites/${site.id}/delivery`;
    const page = await signedInPage(browser, baseUrl, s.token);
    await page.goto(tab);
    const panel = page.getByRole('region', { name: 'Rotations' });
    await panel.getByText('No rotation in progress').waitFor();

    expect((await s.as.post(`${conn}/rotate`)).status).toBe(204);
    const rotation = (await s.as.get<{ state: string; retires_by: string }>(`${conn}/rotation`)).body;
    expect(rotation.state).toBe('delivering');
    await page.reload();
    const row = panel.getByRole('row').filter({ hasText: `database ${db.name}` });
    await row.getByText('delivering', { exact: true }).waitFor();
    expect(await row.locator(`time[datetime="${rotation.retires_by}"]`).count()).toBe(1);

    // The patch confirmed live and the reconciler's last look at the old login recorded.
    await metadata(
      `update deliveries set status = 'live', live_at = now(), delivered_at = now() where target_id = $1 and reason = 'rotate'`,
      [site.id],
    );
    await metadata(
      `update connection_rotations set old_sessions = 2 where site_id = $1 and retired_at is null`,
      [site.id],
    );
    expect((await s.as.get<{ state: string }>(`${conn}/rotation`)).body.state).toBe('draining');
    await page.reload();
    await row.getByText('draining', { exact: true }).waitFor();
    expect(await row.getByRole('cell', { name: '2', exact: true }).count()).toBe(1);
    await checkPage(page, 'site-delivery-rotation');

    expect((await s.as.post(`${conn}/rotate?immediate=true`)).status).toBe(204);
    await page.reload();
    await panel.getByText('No rotation in progress').waitFor();
    expect(await panel.getByRole('row').count()).toBe(0);
    await page.context().close();
  });
});
