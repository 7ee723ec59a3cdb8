/**
 * Every console page (the console's own GET routes, scripts/bench/console-pages.ts), walked in
 * headless Chromium for a project with a site, one service of each kind, a principal, user
 * variables, a deploy and an end user: at 375 px and 1280 px wide nothing sticks out sideways
 * (document.scrollingElement.scrollWidth <= innerWidth), and axe-core finds no serious or
 * critical violation. A new page is walked as soon as it exists.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { consolePagePaths } from '../../../scripts/bench/console-pages';
import { uniqueName } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { metadata, type SeededProject } from '../../helpers/connections';
import { expectAccessible, seedConsoleProject, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const WIDTHS = [375, 1280];
const browser = chromiumForFile();
let s: SeededProject;
let paths: string[];

beforeAll(async () => {
  const seeded = await seedConsoleProject(baseUrl);
  s = seeded.p;
  const project = s.project.id;
  const site = s.site.id;
  const [bucket, authApp] = [s.buckets[0] as { id: string }, s.authApps[0] as { id: string }];
  // Long values are what overflow: a principal with sources, variables, a deploy, an end user.
  const principal = await s.as.post(`/api/v1/projects/${project}/buckets/${bucket.id}/principals`, {
    name: 'nightly-export-to-the-warehouse',
    level: 'read',
    allowed_sources: ['203.0.113.0/24', '2001:db8:abcd:12::/64'],
  });
  expect(principal.status, principal.text).toBe(201);
  const vars = { A_RATHER_LONG_VARIABLE_NAME_FOR_A_FEATURE_FLAG: 'x'.repeat(120) };
  expect((await s.as.put(`/api/v1/projects/${project}/sites/${site}/env`, { vars })).status).toBe(200);
  expect((await s.as.post(`/api/v1/projects/${project}/sites/${site}/deploys`, {})).status).toBe(201);
  await metadata(`insert into auth_users (id, auth_app_id, email) values (gen_random_uuid(), $1, $2)`, [
    authApp.id,
    `${uniqueName('someone-with-a-long-address')}@example.test`,
  ]);
  paths = consolePagePaths(seeded.ids);
});

/** How far the page sticks out sideways at the current width (0 or less: not at all). */
const overflow = (page: Page): Promise<number> =>
  page.evaluate('document.scrollingElement.scrollWidth - window.innerWidth') as Promise<number>;

describe('every console page', { timeout: 180_000 }, () => {
  it('fits 375 px and 1280 px without sideways scrolling and has no serious accessibility violation', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    const walked: string[] = [];
    for (const path of paths) {
      const res = await page.goto(path);
      expect(res?.status(), `${path} answered ${res?.status()}`).toBe(200);
      await page.getByRole('heading', { level: 1 }).waitFor();
      // contract §8: every signed-in page signs out.
      if (!new URL(page.url()).pathname.endsWith('/login'))
        expect(
          await page.getByRole('button', { name: 'Sign out', exact: true }).count(),
          `${path} has no Sign out`,
        ).toBe(1);
      // Revealed values (a long secret, a URL) must fit too.
      await page.evaluate('for (const details of document.querySelectorAll("details")) details.open = true');
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        expect(await overflow(page), `${path} at ${width} px is wider than the window`).toBeLessThanOrEqual(
          0,
        );
      }
      await expectAccessible(page);
      walked.push(new URL(page.url()).pathname);
    }
    // The site's bare path lands on its Connections tab; every tab and service page was seen.
    expect(walked.filter((p) => p.endsWith('/connections')).length).toBe(2);
    for (const part of ['/variables', '/deploys', '/databases/', '/buckets/', '/auth-apps/', '/login'])
      expect(
        walked.some((p) => p.includes(part)),
        part,
      ).toBe(true);
    await page.context().close();
  });
});
