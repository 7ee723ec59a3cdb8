/**
 * Size of the deployable Worker: `wrangler deploy --dry-run --outdir <tmp>` run offline, the
 * bundle gzipped here. If wrangler cannot bundle offline, esbuild bundles the same entry
 * the way the local stack does, and the result says so.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleWorker } from '../local/worker';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What the bundle measured. */
export interface BundleSize {
  /** `wrangler dry-run`, or `esbuild fallback` when wrangler failed offline. */
  method: 'wrangler dry-run' | 'esbuild fallback';
  /** The Worker's code: its main module (minified), without the modules it carries as text. */
  rawBytes: number;
  gzipBytes: number;
  /** The text modules uploaded beside it (the API reference page's swagger-ui script and styles). */
  assets?: { files: string[]; rawBytes: number; gzipBytes: number };
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

async function measureJs(dir: string): Promise<Pick<BundleSize, 'rawBytes' | 'gzipBytes' | 'assets'>> {
  const all = await readdir(dir);
  const assets = all.filter((f) => ADDITIONAL_MODULE.test(f));
  const code = all.filter((f) => !ADDITIONAL_MODULE.test(f) && (f.endsWith('.js') || f.endsWith('.mjs')));
  if (code.length === 0) throw new Error(`no JavaScript in ${dir}`);
  return {
    ...(await sizes(dir, code)),
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
      return {
        method: 'wrangler dry-run',
        ...(await measureJs(dir)),
        ...(said ? { wranglerSays: said } : {}),
      };
    } catch (err) {
      const fallbackDir = join(dir, 'esbuild');
      await bundleWorker(join(ROOT, 'functions/index.ts'), fallbackDir);
      return {
        method: 'esbuild fallback',
        ...(await measureJs(fallbackDir)),
        wranglerError: err instanceof Error ? err.message.split('\n').slice(0, 6).join(' ') : String(err),
      };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
