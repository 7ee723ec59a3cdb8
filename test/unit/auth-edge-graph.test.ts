/**
 * What a fresh isolate runs before its first answer: the modules the Worker's entry reaches
 * without a dynamic import. The auth edge's graph must hold no management route, console page,
 * OpenAPI document or reconciler: those are imported by their first request, batch or tick
 * (functions/app.ts, functions/worker.ts), so a sign-in never waits for them to be built.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * Every module (Tether's and its packages') a first sign-in loads: what esbuild bundles from the
 * Worker's entry and from the auth edge (which the entry imports with the first sign-in) when
 * dynamic imports are left out.
 */
async function eagerInputs(): Promise<string[]> {
  const result = await build({
    entryPoints: ['functions/index.ts', 'functions/auth-edge.ts'],
    outdir: 'unwritten',
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*', 'node:*'],
    logLevel: 'silent',
    plugins: [
      {
        name: 'leave-dynamic-imports-out',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
          );
        },
      },
    ],
  });
  return Object.keys(result.metafile.inputs);
}

/** Tether's own modules among them. */
const eagerModules = async (): Promise<string[]> =>
  (await eagerInputs()).filter((path) => path.startsWith('functions/'));

describe("the auth edge's module graph", () => {
  it('holds the auth routes and none of the management routes, the console, the OpenAPI document or the jobs', async () => {
    const eager = await eagerModules();
    expect(eager).toContain('functions/auth-edge.ts');
    expect(eager).toContain('functions/routes/oauth/exchange.ts');
    const management = eager.filter(
      (path) =>
        (path.startsWith('functions/routes/') &&
          !path.startsWith('functions/routes/oauth/') &&
          !path.startsWith('functions/routes/oauth-server/') &&
          path !== 'functions/routes/shared.ts') ||
        path.startsWith('functions/console/') ||
        path.startsWith('functions/queues/') ||
        [
          'functions/management-app.ts',
          'functions/api-document.ts',
          'functions/jobs.ts',
          'functions/use-cases/reconciler/tick.ts',
        ].includes(path),
    );
    expect(management).toEqual([]);
  }, 60_000);

  it("loads neither the Public Suffix List (allowed-origin registration) nor the XML parser (the bucket kind's IAM and S3 answers)", async () => {
    const packages = (await eagerInputs()).filter((path) => path.startsWith('node_modules/'));
    expect(packages.filter((path) => /node_modules\/(tldts|fast-xml-parser)\//.test(path))).toEqual([]);
    expect(await eagerModules()).not.toContain('functions/domain/allowed-origins.ts');
  }, 60_000);
});
