/**
 * Builds the Worker's modules the way workerd loads them: ESM, Worker/browser export conditions,
 * `cloudflare:*` and Node built-ins (provided by `nodejs_compat`) left as imports, and split at
 * its dynamic imports. A module imported on first use (the management app, the console, the
 * queue's jobs, the XML parser) is a module of its own that workerd neither parses nor runs
 * until then, so a fresh isolate pays only for the code its first request needs. wrangler
 * uploads the folder as it is (wrangler.toml `no_bundle`, `[build]`); the local stack serves the
 * same modules (scripts/local/miniflare-worker.ts).
 *
 * `npx tsx scripts/build-worker.ts` writes the deployable build, minified, to dist/worker.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where `wrangler deploy` takes the Worker's modules from (wrangler.toml `main`). */
export const DEPLOY_DIR = join(ROOT, 'dist/worker');

/** A built Worker: its folder, its main module and every module beside it, main first (paths relative to `dir`). */
export interface WorkerModules {
  dir: string;
  main: string;
  modules: string[];
  /** The files esbuild read, as its metafile names them (relative to the working folder; a plugin's own with its namespace). */
  inputs: string[];
}

/** Options for {@link bundleWorker}. */
export interface BundleOptions {
  /** esbuild `define`s (wrangler.toml `[define]`). */
  define?: Record<string, string>;
  /** Globs of files imported as text (wrangler.toml's Text rules). */
  textGlobs?: string[];
  /** Minify, as the deployed build is. */
  minify?: boolean;
}

/** Builds `entry` into `outdir` (emptied first) as the Worker's modules. */
export async function bundleWorker(
  entry: string,
  outdir: string,
  { define = {}, textGlobs = [], minify = false }: BundleOptions = {},
): Promise<WorkerModules> {
  await rm(outdir, { recursive: true, force: true });
  const { metafile } = await build({
    entryPoints: { index: entry },
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*', 'node:*', ...builtinModules],
    target: 'es2022',
    minify,
    // Lets an entry outside the repository (a scratch Worker) use the project's packages.
    nodePaths: [join(ROOT, 'node_modules')],
    sourcemap: 'linked',
    // The module rules wrangler applies by default.
    loader: { '.txt': 'text', '.html': 'text', '.sql': 'text', '.bin': 'binary' },
    define,
    plugins: [zodWithEnglishOnly, ...(textGlobs.length > 0 ? [textModules(textGlobs)] : [])],
    logLevel: 'warning',
    metafile: true,
  });
  return { ...(await modulesIn(outdir)), inputs: Object.keys(metafile.inputs) };
}

/** The modules of a build in `dir`: index.js first, then its chunks. */
export async function modulesIn(dir: string): Promise<Omit<WorkerModules, 'inputs'>> {
  const modules = (await readdir(dir)).filter((f) => f.endsWith('.js')).sort();
  return { dir, main: 'index.js', modules: ['index.js', ...modules.filter((f) => f !== 'index.js')] };
}

/** The modules of a build as Miniflare takes them: each with its path and source, main first. */
export const moduleSources = (built: Omit<WorkerModules, 'inputs'>) =>
  Promise.all(
    built.modules.map(async (file) => {
      const path = join(built.dir, file);
      return { type: 'ESModule' as const, path, contents: await readFile(path, 'utf8') };
    }),
  );

/**
 * zod's namespace re-exports its error messages in every language (`z.locales`, about 250 KiB
 * minified, a quarter of what a sign-in loads), kept whole because the OpenAPI layer takes `z`
 * as a value. The Worker speaks English only: zod sets English as its default itself, and
 * `z.locales` here holds `en` alone.
 */
const zodWithEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[/\\]zod[/\\]v4[/\\](?:classic[/\\]external|core[/\\]index)\.js$/.test(args.importer)
        ? { path: join(args.resolveDir, '../locales'), namespace: 'zod-english-only' }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: args.path,
      loader: 'js',
    }));
  },
};

/** A glob of wrangler's module rules (`**`, `*`) as a regular expression over a path. */
function globToRegExp(glob: string): string {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return escaped.replace(/\*\*\//g, '(?:.*/)?').replace(/\*/g, '[^/]*');
}

/**
 * Loads the files wrangler.toml's Text rules name as strings, as `wrangler deploy` does, so the
 * local Worker and the deployed one import them alike.
 */
function textModules(globs: string[]): Plugin {
  const filter = new RegExp(`(?:^|/)(?:${globs.map(globToRegExp).join('|')})$`);
  return {
    name: 'wrangler-text-rules',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter }, async (args) => ({
        contents: await readFile(args.path, 'utf8'),
        loader: 'text',
      }));
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await bundleWorker(join(ROOT, 'functions/index.ts'), DEPLOY_DIR, { minify: true });
  console.log(`built ${built.modules.length} modules in ${built.dir}`);
}
