/**
 * Rewrites test/file-durations.json, the order test/duration-sequencer.ts starts test files in,
 * from the durations vitest recorded for each file in its latest runs here
 * (node_modules/.vite/vitest/<hash>/results.json). Run after a full `npm test`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheDir = 'node_modules/.vite/vitest';
const durations: Record<string, number> = {};
for (const hash of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
  const file = join(cacheDir, hash, 'results.json');
  if (!existsSync(file)) continue;
  const { results } = JSON.parse(readFileSync(file, 'utf8')) as {
    results: Array<[string, { duration?: number }]>;
  };
  for (const [key, { duration }] of results) {
    const path = key.slice(key.indexOf(':') + 1);
    if (duration !== undefined && existsSync(path)) durations[key] = Math.round(duration);
  }
}
if (Object.keys(durations).length === 0)
  throw new Error(`no durations under ${cacheDir}: run the tests first`);
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync('test/file-durations.json', `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/file-durations.json: ${Object.keys(sorted).length} files`);
