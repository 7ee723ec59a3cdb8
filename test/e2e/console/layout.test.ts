/**
 * The console's layout holds on every page (the console's own GET routes,
 * scripts/bench/console-pages.ts) at 375 and 1280 px in the light and the dark scheme: no text
 * cut off without an ellipsis and a title, nothing sticking out of a card or a table, no word
 * broken across lines in a heading, a badge or a table header, every `pattern` valid under the
 * `v` flag (test/helpers/layout-checks.ts measures it in the browser). Every page is walked. A form shows only the
 * fields of the delivery target type chosen (contract §11's fields per type) and of the sign-in
 * providers turned on, with and without script; Copy says visibly that it copied.
 */
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { consolePagePaths } from '../../../scripts/bench/console-pages';
import { uniqueName } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { metadata, type SeededProject } from '../../helpers/connections';
import { seedConsoleProject, signedInPage } from '../../helpers/console';
import { layoutProblems } from '../../helpers/layout-checks';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: SeededProject;
let paths: string[];
let sitePath: string;
let authAppPath: string;

beforeAll(async () => {
  const seeded = await seedConsoleProject(baseUrl);
  s = seeded.p;
  const project = s.project.id;
  const site = s.site.id;
  const [bucket, authApp] = [s.buckets[0] as { id: string }, s.authApps[0] as { id: string }];
  // Long values are what clips: a principal with sources, long variables, a deploy, an end user.
  const principal = await s.as.post(`/api/v1/projects/${project}/buckets/${bucket.id}/principals`, {
    name: 'nightly-export-to-the-warehouse',
    level: 'read',
    allowed_sources: ['203.0.113.0/24', '2001:db8:abcd:12::/64'],
  });
  expect(principal.status, principal.text).toBe(201);
  const vars = { A_RATHER_LONG_VARIABLE_NAME_FOR_A_FEATURE_FLAG: 'x'.repeat(120) };
  expect((await s.as.put(`/api/v1/projects/${project}/sites/${site}/env`, { vars })).status).toBe(200);
  expect((await s.as.post(`/api/v1/projects/${project}/sites/${site}/deploys`, {})).status).toBe(201);
  // The Health card with something in it: a rotation under way and a patch failing with a long error.
  const database = s.databases[0] as { id: string };
  const rotated = await s.as.post(
    `/api/v1/projects/${project}/sites/${site}/connections/database/${database.id}/rotate`,
  );
  expect(rotated.status, rotated.text).toBe(204);
  await metadata(
    `insert into deliveries (id, kind, project_id, target_id, reason, status, attempts, last_error)
     values (gen_random_uuid(), 'runtime_patch', $1, $2, 'variables', 'pending', 2, $3)`,
    [
      project,
      site,
      `webhook answered 502 Bad Gateway: ${'upstream connect error or disconnect/reset before headers; '.repeat(4)}`,
    ],
  );
  await metadata(`insert into auth_users (id, auth_app_id, email) values (gen_random_uuid(), $1, $2)`, [
    authApp.id,
    `${uniqueName('someone-with-a-rather-long-address')}@example.test`,
  ]);
  paths = consolePagePaths(seeded.ids);
  sitePath = `/console/projects/${s.project.slug}/sites/${site}`;
  authAppPath = `/console/projects/${s.project.slug}/auth-apps/${authApp.id}`;
});

/** A signed-in page whose context runs no script at all. */
async function signedInWithoutScript(b: Browser): Promise<Page> {
  const context = await b.newContext({ baseURL: baseUrl, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/console/login');
  await page.getByLabel('Account token').fill(s.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/console/login'));
  return page;
}

describe('every console page at 375 and 1280 px, light and dark', { timeout: 300_000 }, () => {
  it('cuts no text without an ellipsis and a title, and breaks no word in headings, badges and table headers', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    const found: string[] = [];
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) {
      const res = await page.goto(path);
      expect(res?.status(), `${path} answered ${res?.status()}`).toBe(200);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.evaluate('for (const details of document.querySelectorAll("details")) details.open = true');
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        for (const width of [375, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          for (const problem of await layoutProblems(page))
            found.push(`${path} at ${width} px (${colorScheme}): ${problem}`);
        }
      }
    }
    expect(found).toEqual([]);
    await page.context().close();
  });
});

/** The API fields (contract §11) of each target type, as the form names its controls. */
const TARGET_FIELDS: Record<string, string[]> = {
  webhook: ['secret', 'url'],
  cloudflare: ['account_id', 'api_token', 'script_name'],
  vercel: ['api_token', 'environments', 'project_id', 'team_id'],
  fly: ['api_token', 'app_name'],
};

/** What the checks read of a form control in the page (the tests' types have no DOM). */
// A field the stylesheet hides has no box (width 0); evaluateAll runs in the page, so no helpers.
interface Control {
  type: string;
  name: string;
  getBoundingClientRect(): { width: number; height: number };
}

/** The names of the visible controls of the target form besides Type (environments_* as `environments`). */
const shownTargetFields = (page: Page): Promise<string[]> =>
  page.locator('form:has(select[name="type"]) :is(input, select, textarea)').evaluateAll((controls) =>
    [
      ...new Set(
        controls
          .map((c) => c as unknown as Control)
          .filter((c) => c.type !== 'hidden' && c.name !== 'type' && c.getBoundingClientRect().width > 0)
          .map((c) => c.name.replace(/^environments_.*/, 'environments')),
      ),
    ].sort(),
  );

/** The visible controls of a provider's section other than its on switch and its Save. */
const shownProviderFields = (page: Page, title: string): Promise<number> =>
  page
    .locator('section.card', { has: page.getByRole('heading', { name: title, exact: true }) })
    .locator(':is(input, select, textarea)')
    .evaluateAll(
      (controls) =>
        controls
          .map((c) => c as unknown as Control)
          .filter(
            (c) => c.type !== 'hidden' && !c.name.endsWith('_enabled') && c.getBoundingClientRect().width > 0,
          ).length,
    );

describe('a form shows only the fields that apply', { timeout: 120_000 }, () => {
  for (const script of [true, false])
    it(`the Delivery tab shows only the chosen target type's fields, and an auth app's Settings only the fields of providers turned on (${script ? 'with' : 'without'} script)`, async () => {
      const page = script
        ? await signedInPage(browser, baseUrl, s.token)
        : await signedInWithoutScript(browser);
      await page.goto(`${sitePath}/delivery`);
      const type = page.getByRole('combobox', { name: 'Type' });
      expect((await type.locator('option').allTextContents()).sort()).toEqual(
        Object.keys(TARGET_FIELDS).sort(),
      );
      for (const [chosen, fields] of Object.entries(TARGET_FIELDS)) {
        await type.selectOption(chosen);
        expect(await shownTargetFields(page), chosen).toEqual(fields);
      }
      await page.goto(authAppPath);
      for (const title of ['Google', 'GitHub', 'Apple']) {
        const on = page.getByRole('checkbox', { name: `${title} enabled` });
        expect(await on.isChecked(), title).toBe(false);
        expect(await shownProviderFields(page, title), `${title} while off`).toBe(0);
        await on.check();
        expect(await shownProviderFields(page, title), `${title} once on`).toBeGreaterThan(0);
        await on.uncheck();
        expect(await shownProviderFields(page, title), `${title} off again`).toBe(0);
      }
      await page.context().close();
    });
});

describe('Copy', { timeout: 120_000 }, () => {
  it('says visibly, in the window, what it copied, and keeps its name', async () => {
    const page = await signedInPage(browser, baseUrl, s.token, `${sitePath}/variables`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      for (const name of ['Copy all', 'Copy A_RATHER_LONG_VARIABLE_NAME_FOR_A_FEATURE_FLAG']) {
        const button = page.getByRole('button', { name, exact: true });
        await button.click();
        const said = page.getByRole('status').filter({ hasText: `Copied ${name.replace(/^Copy /, '')}` });
        await said.waitFor({ state: 'visible' });
        const box = await said.boundingBox();
        expect(box, name).not.toBeNull();
        expect(
          (box?.y ?? -1) >= 0 && (box?.y ?? 0) + (box?.height ?? 0) <= 800,
          `${name} at ${width} px`,
        ).toBe(true);
        expect(await button.count()).toBe(1);
      }
    }
    await page.context().close();
  });
});
