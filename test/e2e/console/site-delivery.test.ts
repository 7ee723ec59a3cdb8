/**
 * A site's Delivery tab in headless Chromium, on a Worker whose queue dead-letters a live patch
 * after one retry: the target form sets a Fly target (the platform gets the whole effective set),
 * a patch sent while Fly is down goes `dead`, and `Retry` on its row delivers it once Fly is back.
 * Every result is checked through the API and at the Fly stand-in.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../helpers/browser';
import { createDatabase, type Seeded, seed } from '../../helpers/connections';
import { checkPage, signedInPage } from '../../helpers/console';
import { eventually } from '../../helpers/eventually';
import { createResource, platformCases, resourceState, setDown } from '../../helpers/platforms';
import { type ExtraWorker, startExtraWorker } from '../../helpers/worker';

let browser: Browser;
let worker: ExtraWorker;
let s: Seeded;

beforeAll(async () => {
  [browser, worker] = await Promise.all([
    launchChromium(),
    startExtraWorker({}, { configPath: 'test/fixtures/wrangler-quick-dead-letters.toml' }),
  ]);
  s = await seed(worker.baseUrl, 1);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await worker?.stop();
});

interface Listed {
  target: { type: string; configured: boolean };
  deliveries: Array<{ id: string; reason: string; status: string; attempts: number }>;
}

describe('the Delivery tab', { timeout: 120_000 }, () => {
  it('sets a Fly target, shows a dead delivery and retries it', async () => {
    const fly = platformCases().find((p) => p.type === 'fly');
    if (!fly) throw new Error('no fly case');
    await createResource(fly, 'fly-token-for-the-console');
    const site = s.sites[0] as { id: string; slug: string };
    const api = `/api/v1/projects/${s.project.id}/sites/${site.id}`;
    expect((await s.as.put(`${api}/env`, { vars: { LOG_LEVEL: 'info' } })).status).toBe(200);
    const listed = async () => (await s.as.get<Listed>(`${api}/deliveries`)).body;

    const page = await signedInPage(browser, worker.baseUrl, s.token, `/console/projects/${s.project.slug}`);
    await page.getByRole('link', { name: site.slug, exact: true }).click();
    await page.getByRole('link', { name: 'Delivery', exact: true }).click();
    await page.getByRole('heading', { name: 'Delivery target' }).waitFor();
    await page.getByRole('combobox', { name: 'Type' }).selectOption('fly');
    await page.getByLabel('App name').fill(fly.key);
    await page.getByLabel('API token').fill('fly-token-for-the-console');
    await page.getByRole('button', { name: 'Set target' }).click();
    await page.getByText('Live patches now go to fly').waitFor();
    expect((await s.as.get(`${api}/target`)).body).toEqual({
      type: 'fly',
      app_name: fly.key,
      api_token_set: true,
    });
    await eventually(
      async () => (await resourceState(fly)).vars,
      (v) => v.LOG_LEVEL === 'info',
      20_000,
      'sync',
    );

    // Fly down: the connect's patch fails its try and its one retry, and goes dead.
    await setDown(fly, true);
    await createDatabase(s.as, s.project.id);
    const dead = await eventually(
      listed,
      (l) => l.deliveries[0]?.reason === 'connect' && l.deliveries[0]?.status === 'dead',
      40_000,
      'a dead delivery',
    );
    await setDown(fly, false);

    await page.reload();
    // The sync's Machine update may have gone dead with Fly too: the connect's row is the one retried.
    const row = page.getByRole('row').filter({ hasText: 'dead' }).filter({ hasText: 'connect' });
    await row.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('The delivery is sent again.').waitFor();
    await checkPage(page, 'site-delivery');
    const effective = (await s.as.get<{ vars: Record<string, string> }>(`${api}/env/effective`)).body.vars;
    await eventually(
      async () => (await resourceState(fly)).vars,
      (v) => v.DATABASE_URL === effective.DATABASE_URL,
      20_000,
      'the retried delivery at Fly',
    );
    const after = await eventually(
      listed,
      (l) => l.deliveries.find((d) => d.id === dead.deliveries[0]?.id)?.status === 'live',
      20_000,
      'live',
    );
    expect(after.target).toEqual({ type: 'fly', configured: true });
    await page.context().close();
  });
});
