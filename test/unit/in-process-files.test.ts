import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { CRON_FILES } from '../cron-files';
import { IN_PROCESS_FILES } from '../in-process-files';
import { PROXIED_FILES } from '../proxied-files';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A file's use of Durable Objects through Miniflare's proxy (test/helpers/durable-objects.ts, a stack's `mf`). */
const MINIFLARE_PROXY = /\bobjectOf\(|\.mf\b|\bstartDurableObjects\b/;

/**
 * What only the workerd world offers a test file: Miniflare's objects, their stored folder and
 * restarts from it, the Worker's log file, WebSockets, Chromium.
 */
const WORKERD_ONLY = new RegExp(
  `${MINIFLARE_PROXY.source}|\\.restart\\(|\\.persistDir\\b|\\.logFile\\b|chromium|new WebSocket\\(`,
  'i',
);

/** Every test file under `folder`, as a path from the repository's root. */
const testFilesUnder = async (folder: string): Promise<string[]> =>
  (await readdir(join(ROOT, folder), { recursive: true }))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${folder}/${name}`);

it('the in-process files exist, are no cron files and use nothing only workerd offers', async () => {
  expect(new Set(IN_PROCESS_FILES).size).toBe(IN_PROCESS_FILES.length);
  for (const file of IN_PROCESS_FILES) {
    await access(join(ROOT, file));
    expect(CRON_FILES, file).not.toContain(file);
    expect(await readFile(join(ROOT, file), 'utf8'), file).not.toMatch(WORKERD_ONLY);
  }
});

/** The files of the in-process, integration and cron projects: every integration and e2e file. */
async function sharedModuleFiles(): Promise<string[]> {
  const files = [
    ...(await testFilesUnder('test/integration')),
    ...(await testFilesUnder('test/e2e')),
    'packages/receiver/test/stack.test.ts',
    'packages/auth-client/test/stack.test.ts',
  ];
  expect(files).toEqual(expect.arrayContaining(CRON_FILES));
  return files;
}

it('no in-process, integration or cron file overrides the fixtures of a shared test: the next files of its worker would get them', async () => {
  // vitest.config.ts runs these projects with `isolate: false`; oauthTestWith (test/helpers/oauth-fixtures.ts) makes a test of the file's own.
  const files = await sharedModuleFiles();
  expect(files).toEqual(expect.arrayContaining(IN_PROCESS_FILES));
  for (const file of files) {
    expect(await readFile(join(ROOT, file), 'utf8'), file).not.toMatch(/\.(override|scoped)\(/);
  }
});

it("every file that reaches Durable Objects through Miniflare's proxy runs isolated, and only those", async () => {
  const proxied: string[] = [];
  for (const file of await sharedModuleFiles()) {
    if (MINIFLARE_PROXY.test(await readFile(join(ROOT, file), 'utf8'))) proxied.push(file);
  }
  expect(proxied.sort()).toEqual([...PROXIED_FILES].sort());
});

it('a file that registers an engine or a kind of its own takes it back out: the next files of its worker share the registry', async () => {
  for (const file of await sharedModuleFiles()) {
    const text = await readFile(join(ROOT, file), 'utf8');
    for (const register of ['registerEngine', 'registerKind']) {
      if (!new RegExp(`\\b${register}\\(`).test(text)) continue;
      expect(text, file).toMatch(
        new RegExp(`(\\w+) = ${register}\\([\\s\\S]*afterAll\\([\\s\\S]*\\b\\1\\?*\\.?\\(\\)`),
      );
    }
  }
});

/** The tests beside their code (vitest.config.ts): `<name>.http.test.ts` runs in-process, any other `<name>.test.ts` in unit. */
async function besideCode(): Promise<{ http: string[]; plain: string[] }> {
  const files = [
    ...(await testFilesUnder('functions')),
    ...(await testFilesUnder('db')),
    ...(await testFilesUnder('scripts')),
  ];
  return {
    http: files.filter((file) => file.endsWith('.http.test.ts')),
    plain: files.filter((file) => !file.endsWith('.http.test.ts')),
  };
}

it('a route test beside its code sits under functions/, uses nothing only workerd offers and overrides no shared fixture', async () => {
  const { http } = await besideCode();
  expect(http.length).toBeGreaterThan(0);
  for (const file of http) {
    // vitest.config.ts's in-process project takes `functions/**/*.http.test.ts` only.
    expect(file).toMatch(/^functions\//);
    const text = await readFile(join(ROOT, file), 'utf8');
    expect(text, file).not.toMatch(WORKERD_ONLY);
    expect(text, file).not.toMatch(/\.(override|scoped)\(/);
  }
});

it('a plain test beside its code asks for no world (`inject`): it runs in unit, where there is none', async () => {
  const { plain } = await besideCode();
  expect(plain.length).toBeGreaterThan(0);
  for (const file of plain) expect(await readFile(join(ROOT, file), 'utf8'), file).not.toMatch(/\binject\(/);
});
