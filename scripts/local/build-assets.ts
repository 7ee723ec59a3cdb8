/**
 * The Worker's static files, served by Workers static assets (wrangler.toml `[assets]`, the
 * `public/` folder) instead of from inside the script: Swagger UI's bundle and stylesheet (from
 * the `swagger-ui-dist` package) for the API reference page, the console's script (from
 * functions/console) and its stylesheet (Tailwind CSS, built by console-css.ts), and `_headers` for their caching. Generated, never
 * committed: `npm run assets` writes them, and the local Worker, `npm run build` and
 * `npm run deploy` run it first (wrangler refuses a missing assets folder).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSET_PATHS } from '../../functions/console/assets';
import { CLIENT_SCRIPT } from '../../functions/console/client-script';
import { buildConsoleCss } from './console-css';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The folder wrangler.toml's `[assets]` names. */
export const ASSETS_DIR = join(ROOT, 'public');

/** Where the API reference page loads Swagger UI's files from (functions/routes/api-docs.ts). */
const DOCS = '/api/v1/docs';

/** Miniflare routes of the files (the page and its init.js at /api/v1/docs stay the Worker's). */
export const ASSET_ROUTES = [
  `*${DOCS}/swagger-ui-bundle.js`,
  `*${DOCS}/swagger-ui.css`,
  `*${ASSET_PATHS.js.slice(0, ASSET_PATHS.js.lastIndexOf('/'))}/*`,
];
const DAY = 'public, max-age=86400';

/** Caching of the files, in Workers static assets' `_headers` format. */
const HEADERS = `${DOCS}/*
  Cache-Control: ${DAY}
  X-Content-Type-Options: nosniff
/console/assets/*
  Cache-Control: ${DAY}, immutable
  X-Content-Type-Options: nosniff
`;

/**
 * Writes `file` whole or not at all (several local Workers may start at once), and only when it
 * changed: a Worker starting meanwhile lists the folder, and a file written beside it for the
 * rename could be gone before it reads it (ENOENT in Miniflare's asset manifest).
 */
async function put(file: string, contents: string): Promise<void> {
  if ((await readFile(file, 'utf8').catch(() => undefined)) === contents) return;
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, contents);
  await rename(tmp, file);
}

/** Writes every static file into {@link ASSETS_DIR}; returns the folder. */
export async function prepareAssets(): Promise<string> {
  const require = createRequire(import.meta.url);
  const swagger = async (name: string) => readFile(require.resolve(`swagger-ui-dist/${name}`), 'utf8');
  await Promise.all([
    put(join(ASSETS_DIR, DOCS, 'swagger-ui-bundle.js'), await swagger('swagger-ui-bundle.js')),
    put(join(ASSETS_DIR, DOCS, 'swagger-ui.css'), await swagger('swagger-ui.css')),
    put(join(ASSETS_DIR, ASSET_PATHS.js), CLIENT_SCRIPT),
    put(join(ASSETS_DIR, ASSET_PATHS.css), await buildConsoleCss()),
    put(join(ASSETS_DIR, '_headers'), HEADERS),
  ]);
  return ASSETS_DIR;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  prepareAssets().then(
    (dir) => console.log(`static assets written to ${dir}`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
