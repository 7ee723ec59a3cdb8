/**
 * The README's pictures of the console, taken from the current build: a small project (sites
 * web and admin, a PostgreSQL database, a bucket, an auth app, a few changes) walked in headless
 * Chromium, every page at 1280 and 375 px in the light and the dark scheme (docs/console.md
 * links them). Every shot is also checked (axe in both schemes, nothing wider than the window).
 * They go to artifacts/console/docs/, or into docs/console/ with UPDATE_DOCS_SCREENSHOTS=1
 * (`npm run docs:screenshots`), which is how the committed ones are made.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiClient, api, createAccount, uniqueName } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { ARTIFACTS_DIR, expectAccessible, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const OUT = process.env.UPDATE_DOCS_SCREENSHOTS
  ? resolve(import.meta.dirname, '../../../docs/console')
  : join(ARTIFACTS_DIR, 'docs');
const browser = chromiumForFile();
let token: string;
let as: ApiClient;
const ids: Record<string, string> = {};

async function created(path: string, body: unknown): Promise<{ id: string; slug?: string }> {
  const res = await as.post<{ id: string; slug?: string }>(path, body);
  expect(res.status, res.text).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  const account = await createAccount(`${uniqueName('dev')}@example.com`);
  token = account.token;
  as = api(baseUrl, token);
  const project = await created('/api/v1/projects', { name: 'Shop', slug: uniqueName('shop') });
  const p = `/api/v1/projects/${project.id}`;
  ids.project = project.slug as string;
  ids.web = (await created(`${p}/sites`, { slug: 'web' })).id;
  ids.admin = (await created(`${p}/sites`, { slug: 'admin' })).id;
  ids.db = (await created(`${p}/databases`, { name: 'main', engine: 'postgresql' })).id;
  ids.bucket = (await created(`${p}/buckets`, { name: 'files' })).id;
  ids.app = (await created(`${p}/auth-apps`, { app_id: uniqueName('shop-login'), name: 'Shop login' })).id;
  const connect = (site: string, body: Record<string, string>) =>
    created(`${p}/sites/${site}/connections`, body);
  await connect(ids.web, { kind: 'database', resource_id: ids.db, level: 'connect' });
  await connect(ids.web, { kind: 'bucket', resource_id: ids.bucket, level: 'read-write' });
  await connect(ids.web, { kind: 'auth_app', resource_id: ids.app });
  await connect(ids.admin, { kind: 'database', resource_id: ids.db, level: 'read-only' });
  const vars = await as.put(`${p}/sites/${ids.web}/env`, {
    vars: { NODE_ENV: 'production', LOG_LEVEL: 'info' },
  });
  expect(vars.status, vars.text).toBe(200);
  await created(`${p}/sites/${ids.web}/deploys`, {});
  // The project page's Health card with something in it: web's database credential rotating.
  const rotated = await as.post(`${p}/sites/${ids.web}/connections/database/${ids.db}/rotate`);
  expect(rotated.status, rotated.text).toBe(204);
});

/** Shoots the page as it stands at both widths (and dark, when asked), after checking it. */
async function shoot(page: Page, name: string): Promise<void> {
  await expectAccessible(page);
  await mkdir(OUT, { recursive: true });
  const schemes = ['light', 'dark'] as const;
  for (const colorScheme of schemes) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = (await page.evaluate(
        'document.scrollingElement.scrollWidth - window.innerWidth',
      )) as number;
      expect(overflow, `${name} at ${width}px`).toBeLessThanOrEqual(0);
      const suffix = colorScheme === 'dark' ? '-dark' : '';
      await page.screenshot({ path: join(OUT, `${name}-${width}${suffix}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('the README screenshots', { timeout: 180_000 }, () => {
  it("shows every page: projects, the project, a site's tabs, a database, a bucket, an auth app, activity, tokens and sign-in", async () => {
    const page = await signedInPage(browser, baseUrl, token, `/console/projects/${ids.project}`);
    await page.getByRole('heading', { name: 'Project map' }).waitFor();
    await shoot(page, 'project');
    await page.goto('/console');
    await shoot(page, 'projects');
    const site = `/console/projects/${ids.project}/sites/${ids.web}`;
    await page.goto(`${site}/connections`);
    await shoot(page, 'site-connections');
    await page.goto(`${site}/variables`);
    await shoot(page, 'site-variables');
    await page.goto(`${site}/delivery`);
    await shoot(page, 'site-delivery');
    await page.goto(`/console/projects/${ids.project}/activity`);
    await shoot(page, 'activity');
    await page.goto(`/console/projects/${ids.project}/databases/${ids.db}`);
    await shoot(page, 'database');
    await page.getByRole('button', { name: 'Show credential' }).click();
    await page.getByRole('heading', { name: 'Connection string' }).waitFor();
    await shoot(page, 'database-credential');
    await page.goto(`/console/projects/${ids.project}/buckets/${ids.bucket}`);
    await shoot(page, 'bucket');
    await page.goto(`/console/projects/${ids.project}/auth-apps/${ids.app}`);
    await shoot(page, 'auth-app');
    await page.goto('/console/tokens');
    await shoot(page, 'tokens');
    await page.context().close();
    const signedOut = await browser.newContext({ baseURL: baseUrl });
    const login = await signedOut.newPage();
    await login.goto('/console/login');
    await shoot(login, 'sign-in');
    await signedOut.close();
  });
});
