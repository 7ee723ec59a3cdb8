/**
 * The Worker's build made once and reused while nothing it was made from changed: the test
 * stacks and every extra Worker a test starts (test/helpers/worker.ts) build the same entry with
 * the same options, each in a process of its own. A build is kept under
 * node_modules/.cache/tether-worker-build/, keyed by what was asked (entry, options, esbuild's
 * version, scripts/build-worker.ts itself), with the content hash of every file esbuild read; it
 * is reused only while every one of those files still hashes the same, so an edit anywhere is
 * never served stale.
 */
import { createHash, randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version as esbuildVersion } from 'esbuild';
import { modulesIn, type WorkerModules } from '../build-worker';

const CACHE = fileURLToPath(new URL('../../node_modules/.cache/tether-worker-build', import.meta.url));
const BUILDER = fileURLToPath(new URL('../build-worker.ts', import.meta.url));
const MANIFEST = 'inputs.json';

/** What a kept build was made from: each input file's absolute path and content hash. */
type Inputs = Record<string, string>;

const hashOf = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** Whether every input still holds what it held when the build was made. */
async function unchanged(inputs: Inputs): Promise<boolean> {
  const checks = Object.entries(inputs).map(async ([path, hash]) => {
    try {
      return hashOf(await readFile(path)) === hash;
    } catch {
      return false;
    }
  });
  return (await Promise.all(checks)).every(Boolean);
}

/** Copies every file of `from` into `to` (a build's folder is flat). */
async function copyFolder(from: string, to: string, skip = ''): Promise<void> {
  const files = (await readdir(from)).filter((file) => file !== skip);
  await Promise.all(files.map((file) => copyFile(join(from, file), join(to, file))));
}

/**
 * The build `make` writes into `outdir`, or a copy of the one made earlier for the same
 * `request` from unchanged inputs; `cacheDir` is for tests.
 */
export async function cachedBuild(
  request: unknown,
  outdir: string,
  make: () => Promise<WorkerModules>,
  cacheDir = CACHE,
): Promise<Omit<WorkerModules, 'inputs'>> {
  const builder = await readFile(BUILDER, 'utf8');
  const dir = join(cacheDir, hashOf(JSON.stringify({ request, esbuildVersion, builder: hashOf(builder) })));
  const kept = await readFile(join(dir, MANIFEST), 'utf8').then(
    (text) => JSON.parse(text) as Inputs,
    () => undefined,
  );
  if (kept && (await unchanged(kept))) {
    await rm(outdir, { recursive: true, force: true });
    await mkdir(outdir, { recursive: true });
    await copyFolder(dir, outdir, MANIFEST);
    return modulesIn(outdir);
  }
  const built = await make();
  // Hashed after the build: a file edited meanwhile makes the kept build miss next time, never serve stale.
  // A plugin's own module ("namespace:path") is made by scripts/build-worker.ts, which the key holds.
  const files = built.inputs.filter((input) => !/^[\w-]+:/.test(input) || isAbsolute(input));
  const inputs: Inputs = {};
  await Promise.all(
    files.map(async (input) => {
      const path = resolve(input);
      inputs[path] = hashOf(await readFile(path));
    }),
  );
  // Written aside and renamed into place: a process reading the cache meanwhile sees the old build or the new one, whole.
  const aside = `${dir}.${randomUUID()}`;
  try {
    await mkdir(aside, { recursive: true });
    for (const file of await readdir(outdir)) {
      if (!file.endsWith('.map')) {
        await copyFile(join(outdir, file), join(aside, file));
        continue;
      }
      // A map names its sources relative to where it lies: kept absolute, it holds wherever a copy goes.
      const map = JSON.parse(await readFile(join(outdir, file), 'utf8')) as { sources: string[] };
      map.sources = map.sources.map((source) => resolve(outdir, source));
      await writeFile(join(aside, file), JSON.stringify(map));
    }
    await writeFile(join(aside, MANIFEST), JSON.stringify(inputs));
    await rm(dir, { recursive: true, force: true });
    await rename(aside, dir);
  } catch {
    // Another process put its build in place first (or the cache cannot be written): this one is still served.
    await rm(aside, { recursive: true, force: true });
  }
  return built;
}
