/**
 * Every page of the console, as concrete paths: the GET routes of the console's own Hono app,
 * each parameter filled from one project's ids (a plugin kind's service page aside). Pure; the round-trip test, the page-by-page
 * browser walk and the bench's page weight all walk this list, so a new page is covered by
 * each of them as soon as it exists (an unknown parameter throws instead of being skipped).
 */
import { consoleApp } from '../../functions/console';

/** The ids a console path may name. */
export interface ConsoleIds {
  /** The project's slug (console paths use it). */
  project: string;
  site: string;
  database: string;
  bucket: string;
  authApp: string;
}

/**
 * Routes of the sign-in flows, not pages of a project: the provider redirects (`/login/:provider`
 * and its callback), the invitation page, whose token is single use, and the CLI's browser
 * login, which only a `tether login` link fills in. Their own tests (provider-sign-in.test.ts,
 * cli-login.test.ts) drive them.
 */
const SIGN_IN_FLOW = /\/:(provider|token)\b|^\/cli-login$/;

/**
 * The page of a service of a kind a plugin registers: the deployment these walks run against
 * registers none, so it has no page to walk; kinds-fake-kind.test.ts registers one and drives it.
 */
const PLUGIN_SERVICE_PAGE = /^\/projects\/:p\/services\/:segment\//;

/** The console's GET route patterns (relative to /console), static assets and sign-in flows left out. */
export function consoleGetRoutes(): string[] {
  const app = consoleApp(() => new Response(null, { status: 500 }));
  const patterns = app.routes.filter((r) => r.method === 'GET').map((r) => r.path);
  return [...new Set(patterns)].filter(
    (p) => !p.startsWith('/assets/') && !SIGN_IN_FLOW.test(p) && !PLUGIN_SERVICE_PAGE.test(p),
  );
}

/** Expands `:name{(?:a|b)}` into one pattern per alternative, with the alternative written in. */
function expandAlternatives(pattern: string): string[] {
  const match = /:\w+\{\(\?:([^)]*)\)\}/.exec(pattern);
  if (!match) return [pattern];
  return (match[1] ?? '')
    .split('|')
    .flatMap((choice) => expandAlternatives(pattern.replace(match[0], choice)));
}

/** The id a `:name` parameter stands for, given the segment before it. */
function idFor(name: string, before: string | undefined, ids: ConsoleIds): string {
  if (name === 'p') return ids.project;
  if (name === 's') return ids.site;
  if (name === 'id') {
    const byCollection: Record<string, string> = {
      databases: ids.database,
      buckets: ids.bucket,
      'auth-apps': ids.authApp,
    };
    const id = before ? byCollection[before] : undefined;
    if (id) return id;
  }
  throw new Error(`console page parameter :${name} after /${before ?? ''} has no id here: add it`);
}

/** `/console…` paths of every console page for the project `ids` names. */
export function consolePagePaths(ids: ConsoleIds, routes = consoleGetRoutes()): string[] {
  return routes.flatMap(expandAlternatives).map((pattern) => {
    const segments = pattern.split('/');
    const filled = segments.map((segment, i) =>
      segment.startsWith(':') ? encodeURIComponent(idFor(segment.slice(1), segments[i - 1], ids)) : segment,
    );
    const path = filled.join('/');
    return path === '/' ? '/console' : `/console${path}`;
  });
}
