import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { CRON_FILES } from '../cron-files';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('every test file that fires the minute cron runs alone (test/cron-files.ts), and only those', async () => {
  const files = (await readdir(join(ROOT, 'test'), { recursive: true }))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/${f.split('\\').join('/')}`);
  const firing: string[] = [];
  for (const f of files) {
    if (/\b(triggerScheduled|runScheduled)\(/.test(await readFile(join(ROOT, f), 'utf8'))) firing.push(f);
  }
  expect([...CRON_FILES].sort()).toEqual(firing.sort());
});
