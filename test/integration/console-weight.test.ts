/**
 * The console's script budget, pinned: every console page, fetched from the Worker
 * with a session, loads at most 30 KiB gzip of script in total. The same weighing as the
 * bench's page-weight rows (scripts/bench/console-weight.ts), so the limit cannot regress
 * between bench runs. Sizes only: nothing here is timed.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { consolePagePaths } from '../../scripts/bench/console-pages';
import { SCRIPT_LIMIT_GZIP_BYTES, scriptsOf, weighPage } from '../../scripts/bench/console-weight';
import { api } from '../helpers/api';
import { seedConsoleProject } from '../helpers/console';

const baseUrl = inject('baseUrl');
let session: string;
let paths: string[];

beforeAll(async () => {
  const { p, ids } = await seedConsoleProject(baseUrl);
  const created = await api(baseUrl, p.token).post<{ token: string }>('/api/v1/account/sessions');
  expect(created.status, created.text).toBe(201);
  session = created.body.token;
  paths = consolePagePaths(ids);
});

describe('console page weight', () => {
  it('finds external and inline scripts in a page', () => {
    const found = scriptsOf(
      '<script src="/a.js" defer></script><script>let x = 1;</script><script></script>',
    );
    expect(found).toEqual({ sources: ['/a.js'], inline: ['let x = 1;'] });
  });

  it('every console page loads at most 30 KiB gzip of script, and some script at all', async () => {
    for (const path of paths) {
      const weight = await weighPage(baseUrl, path, session);
      expect([200, 302], `${path} answered ${weight.status}`).toContain(weight.status);
      expect(
        weight.scriptGzipBytes,
        `${path} loads ${weight.scriptGzipBytes} B gzip of script`,
      ).toBeLessThanOrEqual(SCRIPT_LIMIT_GZIP_BYTES);
      // A page (not the site's redirect) loads the console's script: the sum above measured something.
      if (weight.status === 200) expect(weight.scripts.length, path).toBeGreaterThan(0);
      if (weight.status === 200) expect(weight.scriptGzipBytes, path).toBeGreaterThan(0);
    }
  });
});
