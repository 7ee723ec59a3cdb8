/**
 * A service's own credential on its page in headless Chromium, for a database and a bucket:
 * an admin shows it (the values the API's GET answers), and rotates it only after Confirm in a
 * dialog (Cancel and the open dialog change nothing); the page then shows the new credential,
 * which the API answers from then on. Apps' own credentials stay as they were.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createBucket, createDatabase, type Seeded, type Service, seed } from '../../helpers/connections';
import { checkPage, confirmationDialog, openService, shownValue, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let db: Service;
let bucket: Service;

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  // The project's only site is connected to each at once, with its own credential.
  db = await createDatabase(s.as, s.project.id);
  bucket = await createBucket(s.as, s.project.id);
});

const CASES = [
  { what: 'database', segment: 'databases', secret: 'password', login: 'user', service: () => db },
  {
    what: 'bucket',
    segment: 'buckets',
    secret: 'secret_access_key',
    login: 'access_key_id',
    service: () => bucket,
  },
] as const;

describe("a service's own credential", { timeout: 120_000 }, () => {
  for (const c of CASES) {
    it(`shows the ${c.what}'s credential and rotates it only after Confirm`, async () => {
      const service = c.service();
      const credentialPath = `/api/v1/projects/${s.project.id}/${c.segment}/${service.id}/credentials`;
      const credential = async () => {
        const res = await s.as.get<Record<string, string>>(credentialPath);
        expect(res.status, res.text).toBe(200);
        return res.body;
      };
      const siteEnv = async () =>
        (
          await s.as.get<{ vars: Record<string, string> }>(
            `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}/env/effective`,
          )
        ).body.vars;
      const before = await credential();
      const appEnv = await siteEnv();

      const page = await signedInPage(browser, baseUrl, s.token);
      await openService(page, s.project.slug, service.name);
      await page.getByRole('button', { name: 'Show credential' }).click();
      expect(await shownValue(page, c.login)).toBe(before[c.login]);
      expect(await shownValue(page, c.secret)).toBe(before[c.secret]);
      await checkPage(page, `${c.what}-credential`);

      await openService(page, s.project.slug, service.name);
      expect(await page.content()).not.toContain(before[c.secret]);
      await page.getByRole('button', { name: 'Rotate credential' }).click();
      await (await confirmationDialog(page)).getByRole('button', { name: 'Cancel' }).click();
      expect(await credential()).toEqual(before);
      await page.getByRole('button', { name: 'Rotate credential' }).click();
      const dialog = await confirmationDialog(page);
      expect(await credential()).toEqual(before);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      const shownSecret = await shownValue(page, c.secret);
      expect(shownSecret).not.toBe(before[c.secret]);
      const after = await credential();
      expect(after[c.secret]).toBe(shownSecret);
      expect(after[c.login]).toBe(await shownValue(page, c.login));
      // The site keeps its own credential: the service's rotation is not the app's.
      expect(await siteEnv()).toEqual(appEnv);
      await page.context().close();
    });
  }
});
