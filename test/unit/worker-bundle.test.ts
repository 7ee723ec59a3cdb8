/**
 * What goes into the Worker's bundle: the command-line tool's packages never do (they live in
 * `dependencies` for `npm install -g`, but the Worker must not grow with them), nor Swagger UI,
 * whose files are static assets served before the Worker runs (wrangler.toml `[assets]`).
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const CLI_ONLY = ['commander', 'picocolors', 'dotenv', 'ws'];

describe('the Worker bundle', () => {
  it("holds none of the CLI's packages, nor Swagger UI", async () => {
    const result = await build({
      entryPoints: ['functions/index.ts'],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      external: ['cloudflare:*', 'node:*'],
      logLevel: 'silent',
    });
    const packages = new Set(
      Object.keys(result.metafile.inputs)
        .map((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1])
        .filter((name): name is string => name !== undefined),
    );
    for (const name of CLI_ONLY) expect(packages.has(name), name).toBe(false);
    expect(packages.has('swagger-ui-dist'), 'swagger-ui-dist').toBe(false);
    expect(packages.has('hono')).toBe(true);
  }, 60_000);
});
