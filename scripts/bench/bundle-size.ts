/**
 * Size of the deployable Worker: `wrangler deploy --dry-run --outdir <tmp>` run offline, the
 * bundle gzipped here, and its isolate start (isolate-start.ts). If wrangler cannot bundle
 * offline, esbuild bundles the same entry the way the local stack does, and the result says
 * so. The static assets (wrangler.toml `[assets]`) are reported apart: served before the
 * Worker runs, never loaded into an isolate.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleWorker } from '../build-worker';
import { ASSETS_DIR, prepareAssets } from '../local/build-assets';
import { type IsolateStarts, measureIsolateStart } from './isolate-start';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What the bundle measured. */
export interface BundleSize {
  /** `wrangler dry-run`, or `esbuild fallback` when wrangler failed offline. */
  method: 'wrangler dry-run' | 'esbuild fallback';
  /** The Worker's code: all its modules (minified), without the modules it carries as text. */
  rawBytes: number;
  gzipBytes: number;
  /** How many modules the code is split into (each loaded by the first request that needs it). */
  modules: number;
  /** The text modules uploaded beside it (the API reference page's swagger-ui script and styles). */
  assets?: { files: string[]; rawBytes: number; gzipBytes: number };
  /** The static assets uploaded beside the script (`public/`), not part of it. */
  staticAssets?: { files: string[]; rawBytes: number; gzipBytes: number };
  /** A fresh workerd to its first answer: a minimal Hono Worker's, this script's auth and management answers. */
  isolateStart?: IsolateStarts;
  /** wrangler's own "Total Upload" line, when it printed one. */
  wranglerSays?: string;
  /** Why wrangler could not be used. */
  wranglerError?: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: ROOT, env, timeout: 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`.trim()));
      else resolve(`${stdout}\n${stderr}`);
    });
  });
}

/** wrangler names the modules it uploads beside the main one `<sha1>-<file name>`. */
const ADDITIONAL_MODULE = /^[0-9a-f]{40}-/;

async function sizes(dir: string, files: string[]): Promise<{ rawBytes: number; gzipBytes: number }> {
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const f of files) {
    const content = await readFile(join(dir, f));
    rawBytes += content.length;
    gzipBytes += gzipSync(content).length;
  }
  return { rawBytes, gzipBytes };
}

/** The Worker's JavaScript modules in `dir`, index.js (its main module) first. */
async function codeModules(dir: string): Promise<string[]> {
  const code = (await readdir(dir)).filter(
    (f) => !ADDITIONAL_MODULE.test(f) && (f.endsWith('.js') || f.endsWith('.mjs')),
  );
  if (!code.includes('index.js')) throw new Error(`no index.js in ${dir}`);
  return ['index.js', ...code.filter((f) => f !== 'index.js').sort()];
}

async function measureJs(
  dir: string,
): Promise<Pick<BundleSize, 'rawBytes' | 'gzipBytes' | 'modules' | 'assets'>> {
  const assets = (await readdir(dir)).filter((f) => ADDITIONAL_MODULE.test(f));
  const code = await codeModules(dir);
  return {
    ...(await sizes(dir, code)),
    modules: code.length,
    ...(assets.length > 0
      ? {
          assets: {
            files: assets.map((f) => f.replace(ADDITIONAL_MODULE, '')),
            ...(await sizes(dir, assets)),
          },
        }
      : {}),
  };
}

/** Bundles the Worker offline and measures it. */
export async function measureBundle(): Promise<BundleSize> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-bench-bundle-'));
  await prepareAssets();
  const staticFiles = (await readdir(ASSETS_DIR, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(ASSETS_DIR.length + 1));
  const staticAssets = { files: staticFiles, ...(await sizes(ASSETS_DIR, staticFiles)) };
  try {
    const env = {
      ...process.env,
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      WRANGLER_SEND_METRICS: 'false',
      CI: '1',
    };
    try {
      const wrangler = join(ROOT, 'node_modules/.bin/wrangler');
      const out = await run(wrangler, ['deploy', '--dry-run', '--outdir', dir], env);
      const said = /Total Upload:[^\n]*/.exec(out)?.[0].trim();
      const measured = await measureJs(dir);
      const modules = (await codeModules(dir)).map((f) => join(dir, f));
      const isolateStart = await measureIsolateStart(modules).catch((err: unknown) => {
        console.error(`isolate start not measured: ${String(err)}`);
        return undefined;
      });
      return {
        method: 'wrangler dry-run',
        ...measured,
        staticAssets,
        ...(isolateStart ? { isolateStart } : {}),
        ...(said ? { wranglerSays: said } : {}),
      };
    } catch (err) {
      const fallbackDir = join(dir, 'esbuild');
      await bundleWorker(join(ROOT, 'functions/index.ts'), fallbackDir, { minify: true });
      return {
        method: 'esbuild fallback',
        ...(await measureJs(fallbackDir)),
        staticAssets,
        wranglerError: err instanceof Error ? err.message.split('\n').slice(0, 6).join(' ') : String(err),
      };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The bundle's lines for the bench's report. */
export function describeBundle(bundle: BundleSize | { error: string }): string[] {
  if ('error' in bundle) return [`Worker bundle: could not be measured: ${bundle.error}`];
  const kib = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;
  const lines = [
    `Worker script (${bundle.method}, minified, ${bundle.modules} modules): ${kib(bundle.gzipBytes)} gzip, ${kib(bundle.rawBytes)} raw`,
  ];
  if (bundle.assets)
    lines.push(
      `  uploaded beside it as text modules: ${bundle.assets.files.join(', ')}: ${kib(bundle.assets.gzipBytes)} gzip, ${kib(bundle.assets.rawBytes)} raw`,
    );
  if (bundle.staticAssets)
    lines.push(
      `  static assets, served before the Worker and not in its script: ${bundle.staticAssets.files.length} files, ${kib(bundle.staticAssets.gzipBytes)} gzip, ${kib(bundle.staticAssets.rawBytes)} raw`,
    );
  if (bundle.isolateStart) lines.push(...describeStarts(bundle.isolateStart));
  if (bundle.wranglerSays) lines.push(`  wrangler: ${bundle.wranglerSays}`);
  if (bundle.wranglerError) lines.push(`  wrangler failed offline: ${bundle.wranglerError}`);
  return lines;
}

/** The most an isolate's first auth answer may take against a minimal Hono Worker's, and a management one's. */
export const START_TARGETS = { auth: 1.3, management: 2 } as const;

/** The isolate starts' lines, each ratio to the minimal Worker's with its target. */
function describeStarts(starts: IsolateStarts): string[] {
  const { minimal, stack, libraries, managementFloor, managementGroupFloor } = starts;
  const lines = [
    `Isolate start (a fresh workerd to its first answer, median of ${starts.runs}, alternated): a minimal Hono Worker ${minimal.wallMs.toFixed(0)} ms (workerd CPU ${minimal.cpuMs.toFixed(0)} ms)`,
    `  floor, the stack alone (Hono, Neon + drizzle, jose; no zod) answering the same preflight: ${stack.wallMs.toFixed(0)} ms, ${(stack.wallMs / minimal.wallMs).toFixed(2)}x; workerd CPU ${stack.cpuMs.toFixed(0)} ms, ${(stack.cpuMs / minimal.cpuMs).toFixed(2)}x`,
    `  ceiling, the auth routes' libraries alone (zod-openapi, zod, Neon + drizzle, jose) answering the same preflight: ${libraries.wallMs.toFixed(0)} ms, ${(libraries.wallMs / minimal.wallMs).toFixed(2)}x; workerd CPU ${libraries.cpuMs.toFixed(0)} ms, ${(libraries.cpuMs / minimal.cpuMs).toFixed(2)}x`,
    `  floor of a management answer that reads its caller (those libraries, every system's environment check, the metadata schema; the lookup built, not sent): ${managementFloor.wallMs.toFixed(0)} ms, ${(managementFloor.wallMs / minimal.wallMs).toFixed(2)}x; workerd CPU ${managementFloor.cpuMs.toFixed(0)} ms, ${(managementFloor.cpuMs / minimal.cpuMs).toFixed(2)}x`,
    `  and with the route group that serves it (routes/projects.ts, its routes and schemas built): ${managementGroupFloor.wallMs.toFixed(0)} ms, ${(managementGroupFloor.wallMs / minimal.wallMs).toFixed(2)}x; workerd CPU ${managementGroupFloor.cpuMs.toFixed(0)} ms, ${(managementGroupFloor.cpuMs / minimal.cpuMs).toFixed(2)}x`,
  ];
  for (const kind of ['auth', 'management'] as const) {
    const { wallMs, cpuMs } = starts[kind];
    const ratio = wallMs / minimal.wallMs;
    const target = START_TARGETS[kind];
    lines.push(
      `  first answer ${kind === 'auth' ? 'of the auth service' : 'of the management API'}: ${wallMs.toFixed(0)} ms, ${ratio.toFixed(2)}x (target <= ${target}x: ${ratio <= target ? 'PASS' : 'FAIL'}); workerd CPU ${cpuMs.toFixed(0)} ms, ${(cpuMs / minimal.cpuMs).toFixed(2)}x`,
    );
  }
  return lines;
}
