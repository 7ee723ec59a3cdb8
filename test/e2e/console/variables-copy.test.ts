/**
 * What people take out of the console, in headless Chromium: `Copy DATABASE_URL` and `Copy all`
 * put the right value on the clipboard, `Download .env` is the site's effective set as dotenv
 * reads it, a refused save keeps the typed lines and says why, and `Promote` gives a
 * connection the plain names only after Confirm. Every result is checked through the API.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'dotenv';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createDatabase, type Seeded, seed } from '../../helpers/connections';
import { checkPage, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let site: { id: string; slug: string };
let sitePath: string;

const effective = async () =>
  (await s.as.get<{ vars: Record<string, string> }>(`${sitePath}/env/effective`)).body.vars;

async function variablesTab(): Promise<Page> {
  const page = await signedInPage(
    browser,
    baseUrl,
    s.token,
    `/console/projects/${s.project.slug}/sites/${site.id}/variables`,
  );
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  await page.getByRole('heading', { name: 'Effective variables' }).waitFor();
  return page;
}

const clipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  site = s.sites[0] as { id: string; slug: string };
  sitePath = `/api/v1/projects/${s.project.id}/sites/${site.id}`;
  await createDatabase(s.as, s.project.id); // the only site is connected at once
  const vars = { GREETING: "it's a 'quoted' value", MULTI: 'line one\nline two', PLAIN: 'x' };
  expect((await s.as.put(`${sitePath}/env`, { vars })).status).toBe(200);
});

describe('the Variables tab', { timeout: 120_000 }, () => {
  it('copies one value and all of them, and downloads the effective set as .env', async () => {
    const page = await variablesTab();
    const vars = await effective();
    // Named so that a lookup finds one button, DATABASE_URL_<NAME>'s beside it notwithstanding.
    await page.getByRole('button', { name: 'Copy DATABASE_URL' }).click();
    await expect.poll(() => clipboard(page)).toBe(vars.DATABASE_URL);
    await page.getByRole('button', { name: 'Copy all' }).click();
    await expect.poll(async () => parse(await clipboard(page))).toEqual(vars);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download .env' }).click();
    const file = await (await download).path();
    expect(parse(await readFile(file, 'utf8'))).toEqual(vars);
    // Derived values are shown as derived: the managed key as Tether's, never as "you".
    const from = (name: string) =>
      page
        .getByRole('row')
        .filter({ has: page.getByText(name, { exact: true }) })
        .getByRole('cell')
        .nth(1)
        .textContent();
    await expect(from('DATABASE_URL')).resolves.toMatch(/^connection /);
    await expect(from('GREETING')).resolves.toBe('you');
    await checkPage(page, 'site-variables-copy');
    await page.context().close();
  });

  it('keeps the typed lines after a refused save and says what to fix', async () => {
    const page = await variablesTab();
    const typed = 'GOOD=1\n1BAD=oops';
    await page.getByRole('textbox', { name: 'Variables' }).fill(typed);
    await page.getByRole('button', { name: 'Save variables' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Variables' }).inputValue()).toBe(typed);
    const saved = await s.as.get<{ vars: Record<string, string> }>(`${sitePath}/env`);
    expect(saved.body.vars).not.toHaveProperty('GOOD');
    await checkPage(page, 'site-variables-refused');
    await page.context().close();
  });
});

describe('Promote', { timeout: 120_000 }, () => {
  it('gives a second database the plain names only after Confirm', async () => {
    const second = await createDatabase(s.as, s.project.id);
    const connect = await s.as.post(`${sitePath}/connections`, { kind: 'database', resource_id: second.id });
    expect(connect.status, connect.text).toBe(201);
    const before = await effective();
    const page = await signedInPage(
      browser,
      baseUrl,
      s.token,
      `/console/projects/${s.project.slug}/sites/${site.id}/connections`,
    );
    const row = page
      .getByRole('region', { name: 'Connections', exact: true })
      .getByRole('row')
      .filter({ hasText: second.name });
    await row.getByRole('button', { name: 'Promote' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect((await effective()).DATABASE_URL).toBe(before.DATABASE_URL);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'plain names' }).waitFor();
    const after = await effective();
    const suffix = second.name.toUpperCase();
    expect(after.DATABASE_URL).toBe(after[`DATABASE_URL_${suffix}`]);
    expect(after.DATABASE_URL).not.toBe(before.DATABASE_URL);
    // The promoted row no longer offers it; the other one does.
    expect(await row.getByRole('button', { name: 'Promote' }).count()).toBe(0);
    await page.context().close();
  });
});
