/**
 * Helpers for the console's end-to-end tests: a signed-in browser page, an axe-core scan of the
 * page as it stands, and screenshots at phone and desktop width written to artifacts/ (ignored).
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { ConsoleIds } from '../../scripts/bench/console-pages';
import { type SeededProject, seedProject } from './connections';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Where screenshots go (git-ignored). */
export const ARTIFACTS_DIR = resolve(import.meta.dirname, '../../artifacts/console');

/** A fresh browser context signed in to the console at `baseUrl` with `token`, on `start` (default /console). */
export async function signedInPage(
  browser: Browser,
  baseUrl: string,
  token: string,
  start = '/console',
): Promise<Page> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(start);
  await page.getByLabel('Account token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/console/login'));
  return page;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page (its script injected through the DevTools protocol, so the page's
 * CSP does not apply) in the light and the dark colour scheme, and fails on any serious or
 * critical violation in either.
 */
export async function expectAccessible(page: Page): Promise<void> {
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    await axeScan(page, colorScheme);
  }
}

async function axeScan(page: Page, scheme: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${page.url()} (${scheme}): ${JSON.stringify(serious, null, 1)}`).toEqual([]);
}

/** Screenshots of the page at 375 px and 1280 px wide, named `<name>-375.png` and `<name>-1280.png`. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}-${width}.png`), fullPage: true });
    // Nothing may stick out sideways at phone width: the page scrolls vertically only.
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - window.innerWidth',
    )) as number;
    expect(overflow, `${name} at ${width}px is wider than the window`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Scans and screenshots the page as it stands. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await expectAccessible(page);
  await screenshots(page, name);
}

/** Opens a database, bucket or auth app by its link on the project's page (its name), at its Access heading. */
export async function openService(page: Page, projectSlug: string, name: string): Promise<void> {
  await page.goto(`/console/projects/${projectSlug}`);
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { name: 'Access', exact: true }).waitFor();
}

/** The value a secret page shows under the API's field `key` (its `<dt data-key>`), e.g. `password`. */
export async function shownValue(page: Page, key: string): Promise<string> {
  await page.getByRole('heading', { name: /not shown again|show this again/ }).waitFor();
  return (await page.locator(`dt[data-key="${key}"]`).locator('+ dd').locator('code').textContent()) ?? '';
}

/** Waits for the confirmation dialog a change opened and returns it (nothing has changed yet). */
export async function confirmationDialog(page: Page) {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  return dialog;
}

/** A project with one site and one service of each kind, and the ids its console pages name. */
export async function seedConsoleProject(baseUrl: string): Promise<{ p: SeededProject; ids: ConsoleIds }> {
  const p = await seedProject(baseUrl, 1, { databases: 1, buckets: 1, authApps: 1 });
  const ids = {
    project: p.project.slug,
    site: p.site.id,
    database: p.databases[0]?.id as string,
    bucket: p.buckets[0]?.id as string,
    authApp: p.authApps[0]?.id as string,
  };
  return { p, ids };
}
