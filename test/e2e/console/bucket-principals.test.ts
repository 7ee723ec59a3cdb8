/**
 * A bucket's external principals in headless Chromium: created with name, sources, expiry and
 * level (the secret key shown once, never on the page again), rotated and revoked only after
 * Confirm in a dialog (Cancel changes nothing). Every result is checked through the API.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../../helpers/browser';
import { createBucket, type Seeded, type Service, seed } from '../../helpers/connections';
import { checkPage, confirmationDialog, openService, shownValue, signedInPage } from '../../helpers/console';

const baseUrl = inject('baseUrl');
const browser = chromiumForFile();
let s: Seeded;
let bucket: Service;

interface Listed {
  id: string;
  name: string;
  level: string;
  allowed_sources: string[];
  expires_at: string | null;
  access_key_id: string;
}
const principals = async (): Promise<Listed[]> => {
  const res = await s.as.get<{ principals: Listed[] }>(
    `/api/v1/projects/${s.project.id}/buckets/${bucket.id}/principals`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.principals;
};

beforeAll(async () => {
  s = await seed(baseUrl, 1);
  bucket = await createBucket(s.as, s.project.id);
});

describe('bucket principals', { timeout: 120_000 }, () => {
  it('creates a principal whose secret key is shown once, rotates it and revokes it, each after Confirm', async () => {
    const page = await signedInPage(browser, baseUrl, s.token);
    await openService(page, s.project.slug, bucket.name);
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Create principal' }) });
    await form.getByRole('textbox', { name: 'Name' }).fill('backup');
    await form.getByRole('textbox', { name: 'Allowed sources' }).fill('198.51.100.0/24');
    await form.getByRole('textbox', { name: 'Expires' }).fill('2027-06-30');
    await form.getByRole('combobox', { name: 'Level' }).selectOption('read');
    await form.getByRole('button', { name: 'Create principal' }).click();
    const firstSecret = await shownValue(page, 'secret_access_key');
    const firstKey = await shownValue(page, 'access_key_id');
    expect(firstSecret.length).toBeGreaterThanOrEqual(20);
    const [created] = await principals();
    expect(created).toMatchObject({
      name: 'backup',
      level: 'read',
      allowed_sources: ['198.51.100.0/24'],
      expires_at: '2027-06-30T00:00:00.000Z',
      access_key_id: firstKey,
    });
    await checkPage(page, 'bucket-principal-created');

    // Shown once: the bucket's page lists the principal without its secret.
    await openService(page, s.project.slug, bucket.name);
    const row = page.getByRole('row').filter({ hasText: 'backup' });
    await expect(row.textContent()).resolves.toContain(firstKey);
    expect(await page.content()).not.toContain(firstSecret);

    // Rotate: Cancel changes nothing; Confirm shows a new secret once.
    await row.getByRole('button', { name: 'Rotate' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Cancel' }).click();
    expect(await principals()).toEqual([created]);
    await row.getByRole('button', { name: 'Rotate' }).click();
    const rotateDialog = await confirmationDialog(page);
    expect(await principals()).toEqual([created]);
    await rotateDialog.getByRole('button', { name: 'Confirm' }).click();
    const newSecret = await shownValue(page, 'secret_access_key');
    const newKey = await shownValue(page, 'access_key_id');
    expect(newSecret).not.toBe(firstSecret);
    const [rotated] = await principals();
    expect(rotated).toMatchObject({ id: created?.id, name: 'backup', level: 'read', access_key_id: newKey });

    // Revoke: nothing changes before Confirm; then it leaves the listing at once.
    await openService(page, s.project.slug, bucket.name);
    expect(await page.content()).not.toContain(newSecret);
    await page.getByRole('row').filter({ hasText: 'backup' }).getByRole('button', { name: 'Revoke' }).click();
    const revokeDialog = await confirmationDialog(page);
    expect(await principals()).toHaveLength(1);
    await revokeDialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Revoked backup' }).waitFor();
    expect(await principals()).toEqual([]);
    expect(await page.getByRole('row').filter({ hasText: 'backup' }).count()).toBe(0);
    await page.context().close();
  });
});
