/**
 * The Worker's build kept between starts (scripts/local/bundle-cache.ts): made once for one
 * request while its inputs stay the same, made again once any input changed, never shared between
 * requests, and its maps' sources hold from wherever the copy lies.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkerModules } from '../../scripts/build-worker';
import { cachedBuild } from '../../scripts/local/bundle-cache';

const root = await mkdtemp(join(tmpdir(), 'tether-bundle-cache-'));
const cacheDir = join(root, 'cache');
afterAll(() => rm(root, { recursive: true, force: true }));

/** A "build" of `source` into `outdir`: a main module and a chunk, each with its map; it counts its runs. */
function fakeBuild(source: string) {
  const runs = { count: 0 };
  const make = (outdir: string) => async (): Promise<WorkerModules> => {
    runs.count++;
    const text = await readFile(source, 'utf8');
    const map = JSON.stringify({ sources: [relative(outdir, source)] });
    await writeFile(join(outdir, 'index.js'), `import './chunk-a.js'; // ${text}`);
    await writeFile(join(outdir, 'chunk-a.js'), `// ${text}`);
    await writeFile(join(outdir, 'index.js.map'), map);
    await writeFile(join(outdir, 'chunk-a.js.map'), map);
    const inputs = [relative(process.cwd(), source), 'zod-english-only:/made/by/a/plugin'];
    return { dir: outdir, main: 'index.js', modules: ['index.js', 'chunk-a.js'], inputs };
  };
  return { runs, make };
}

async function freshOutdir(): Promise<string> {
  const dir = join(root, randomUUID(), 'deeper', 'bundle');
  await mkdir(dir, { recursive: true });
  return dir;
}

describe('the kept Worker build', () => {
  it('is made once for the same request and inputs, and again once an input changed', async () => {
    const source = join(root, 'entry.ts');
    await writeFile(source, 'one');
    const request = { entry: source, test: randomUUID() };
    const { runs, make } = fakeBuild(source);

    const first = await freshOutdir();
    await cachedBuild(request, first, make(first), cacheDir);
    const second = await freshOutdir();
    const copy = await cachedBuild(request, second, make(second), cacheDir);
    expect(runs.count).toBe(1);
    expect(copy.modules).toEqual(['index.js', 'chunk-a.js']);
    expect(await readFile(join(second, 'chunk-a.js'), 'utf8')).toBe('// one');
    // The copy's maps name the source absolutely, so they hold at another depth.
    expect(JSON.parse(await readFile(join(second, 'chunk-a.js.map'), 'utf8')).sources).toEqual([source]);

    await writeFile(source, 'two');
    const third = await freshOutdir();
    await cachedBuild(request, third, make(third), cacheDir);
    expect(await readFile(join(third, 'chunk-a.js'), 'utf8')).toBe('// two');
    expect(runs.count).toBe(2);
  });

  it('is not shared between requests', async () => {
    const source = join(root, 'other.ts');
    await writeFile(source, 'same');
    const { runs, make } = fakeBuild(source);
    for (const test of [randomUUID(), randomUUID()]) {
      const outdir = await freshOutdir();
      await cachedBuild({ entry: source, test }, outdir, make(outdir), cacheDir);
    }
    expect(runs.count).toBe(2);
  });
});
