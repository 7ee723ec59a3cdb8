/**
 * The console's page weight: every console page (scripts/bench/console-pages.ts)
 * fetched once from the running Worker with a dashboard session, reported as HTML bytes, its
 * gzip bytes and the gzip bytes of all the script it loads (each `<script src>` fetched, inline
 * script counted too). A row fails when the page's script exceeds 30 KiB gzip. Sizes, not
 * timings: the same build gives the same numbers, so test/integration/console-weight.test.ts
 * holds the same limit.
 */
import { gzipSync } from 'node:zlib';
import { type ConsoleIds, consolePagePaths } from './console-pages';
import { createProject } from './setup-client';
import { holds } from './stats';
import type { BenchContext, ResultRow, Scenario } from './types';

/** The most script a console page may load, gzip. */
export const SCRIPT_LIMIT_GZIP_BYTES = 30 * 1024;

/** What one page weighs. */
export interface PageWeight {
  path: string;
  status: number;
  htmlBytes: number;
  htmlGzipBytes: number;
  /** Every script the page runs, gzip, summed. */
  scriptGzipBytes: number;
  /** The `src` of each script it loads. */
  scripts: string[];
}

const gzipBytes = (text: string | Uint8Array): number => gzipSync(text).length;

/** The scripts of an HTML page: the `src` of each external one and the text of each inline one. */
export function scriptsOf(html: string): { sources: string[]; inline: string[] } {
  const sources: string[] = [];
  const inline: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const src = /\bsrc\s*=\s*["']([^"']+)["']/i.exec(match[1] ?? '')?.[1];
    if (src) sources.push(src);
    else if ((match[2] ?? '').trim()) inline.push(match[2] ?? '');
  }
  return { sources, inline };
}

/** Fetches `path` of the console at `baseUrl` with `session` and weighs it and its scripts. */
export async function weighPage(baseUrl: string, path: string, session: string): Promise<PageWeight> {
  const get = (url: string) =>
    fetch(new URL(url, baseUrl), { headers: { cookie: `tether_session=${session}` }, redirect: 'manual' });
  const res = await get(path);
  const html = await res.text();
  const { sources, inline } = scriptsOf(html);
  let scriptGzipBytes = inline.reduce((sum, text) => sum + gzipBytes(text), 0);
  for (const src of sources) {
    const script = await get(src);
    if (!script.ok) throw new Error(`${path} loads ${src}, which answered ${script.status}`);
    scriptGzipBytes += gzipBytes(new Uint8Array(await script.arrayBuffer()));
  }
  return {
    path,
    status: res.status,
    htmlBytes: Buffer.byteLength(html),
    htmlGzipBytes: gzipBytes(html),
    scriptGzipBytes,
    scripts: sources,
  };
}

/** The bench row of one page. */
export function weightRow(w: PageWeight, issue = 17): ResultRow {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  return {
    scenario: `console page ${w.path.replace(/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, ':id')}`,
    issue,
    checks: [
      holds('served', w.status < 400, `HTTP ${w.status}`),
      holds(
        `script <= ${kib(SCRIPT_LIMIT_GZIP_BYTES)} gzip`,
        w.scriptGzipBytes <= SCRIPT_LIMIT_GZIP_BYTES,
        `script ${kib(w.scriptGzipBytes)} gzip; HTML ${w.htmlBytes} B, ${w.htmlGzipBytes} B gzip`,
      ),
    ],
    details: { ...w },
  };
}

interface State {
  session: string;
  ids: ConsoleIds;
}

/** Page weight and script size of every console page, for a project with one of each service. */
export const consoleWeightScenario: Scenario<State> = {
  name: 'console page weight',
  issue: 17,
  target: 'every console page loads <= 30 KiB gzip of script',
  async setup(ctx: BenchContext): Promise<State> {
    const projectId = await createProject(ctx.api, 'bench console');
    const base = `/api/v1/projects/${projectId}`;
    const project = await ctx.api.call<{ slug: string }>('GET', base);
    const site = await ctx.api.call<{ id: string }>('POST', `${base}/sites`, { slug: 'web' });
    const database = await ctx.api.call<{ id: string }>('POST', `${base}/databases`, {
      name: 'console_db',
      engine: 'postgresql',
    });
    const bucket = await ctx.api.call<{ id: string }>('POST', `${base}/buckets`, { name: 'console-files' });
    const authApp = await ctx.api.call<{ id: string }>('POST', `${base}/auth-apps`, {
      app_id: `console-${Date.now()}`,
    });
    const { token } = await ctx.api.call<{ token: string }>('POST', '/api/v1/account/sessions');
    return {
      session: token,
      ids: {
        project: project.slug,
        site: site.id,
        database: database.id,
        bucket: bucket.id,
        authApp: authApp.id,
      },
    };
  },
  async measure(ctx: BenchContext, state: State): Promise<ResultRow[]> {
    const rows: ResultRow[] = [];
    for (const path of consolePagePaths(state.ids)) {
      rows.push(weightRow(await weighPage(ctx.stack.baseUrl, path, state.session)));
    }
    return rows;
  },
};
