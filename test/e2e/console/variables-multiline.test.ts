/**
 * Multi-line values in the console's Variables form, in headless Chromium: saving the form
 * unchanged keeps every value exactly (a PEM key, a CRLF value, a value starting with a double
 * quote, a literal backslash-n), and a key pasted in double quotes across lines is saved as one
 * value. Pins the bug of an unchanged save splitting a multi-line value into several variables.
 * Every result is checked through the API.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { type Seeded, seed } from '../../helpers/connections';
import { signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let sitePath: string;
let tab: string;

const PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg',
  'x1y2z3+/=',
  '-----END PRIVATE KEY-----',
].join('\n');
const VARS = {
  SIGNING_KEY: PEM,
  WINDOWS: 'first\r\nsecond',
  QUOTED: '"starts with a quote" and goes on',
  ESCAPES: 'a\\nb \\ "c"',
  PLAIN: 'x=y',
};

const saved = async () => (await s.as.get<{ vars: Record<string, string> }>(`${sitePath}/env`)).body.vars;

async function variablesTab(): Promise<Page> {
  const page = await signedInPage(browser, baseUrl, s.token, tab);
  await page.getByRole('textbox', { name: 'Variables' }).waitFor();
  return page;
}

async function save(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Save variables' }).click();
  await page.getByText(/Saved \d+ variable/).waitFor();
}

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  const site = s.sites[0] as { id: string };
  sitePath = `/api/v1/projects/${s.project.id}/sites/${site.id}`;
  tab = `/console/projects/${s.project.slug}/sites/${site.id}/variables`;
  expect((await s.as.put(`${sitePath}/env`, { vars: VARS })).status).toBe(200);
});

describe('multi-line values in the Variables form', { timeout: 120_000 }, () => {
  it('an unchanged save keeps every value exactly, twice over', async () => {
    for (let round = 0; round < 2; round++) {
      const page = await variablesTab();
      await save(page);
      expect(await saved()).toEqual(VARS);
      await page.context().close();
    }
  });

  it('a key pasted in double quotes over several lines is saved as one value', async () => {
    const page = await variablesTab();
    const box = page.getByRole('textbox', { name: 'Variables' });
    await box.fill(`${await box.inputValue()}\nPASTED="${PEM}"\nAFTER=1`);
    await save(page);
    expect(await saved()).toEqual({ ...VARS, PASTED: PEM, AFTER: '1' });
    await page.context().close();
  });
});
