/**
 * The management side of the Worker: /healthz, the console, the API reference and the management
 * API under /api/v1, each app built from the parts its requests need (buildManagementFetch).
 * Loaded on the first request that is not the auth service's (app.ts), so an isolate that only
 * answers sign-ins never builds its routes, schemas or OpenAPI document.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono, MiddlewareHandler, NotFoundHandler } from 'hono';
import { createHttpDb } from '../db/client';
import type { AppEnv, Fetch } from './app-env';
import type { Bindings, Config } from './config';
import type { ConsoleEnv } from './console/console-env';
import type { WorkerOptions } from './container';
import { isPluginKind, kindOfSegment, loadConfig } from './kinds/registry';
import { allowedMethods, methodNotAllowed, routePattern } from './lib/allowed-methods';
import { loadOnce } from './lib/load-once';
import { boundedBodies, isJsonMediaType } from './lib/request-limits';
import { pathOf } from './lib/request-path';
import { onError } from './on-error';
import { requestScope } from './request-scope';
import { apiRoutes } from './routes/api';
import { apiDocsRoutes } from './routes/api-docs';
import { cliTokenRoutes } from './routes/cli-token';
import { healthRoutes } from './routes/health';
import { ROUTE_GROUP_NAMES, ROUTE_GROUPS, type RouteTable, type RouteTarget } from './routes/index';
import { kindsRoutes } from './routes/kinds';
import { ROUTE_TABLE } from './routes/route-table';
import { namedServiceIn, withServiceIds } from './use-cases/resources/by-name';

/**
 * Every request body of the API is JSON (contract §3), so a body sent without a JSON media type
 * (curl -d's form type, fetch's text/plain, none at all) is read as JSON rather than refused:
 * one that is not JSON still gets the 400 of a malformed body. Cookie-authenticated writes from
 * another site are refused before any body is read, so this opens no cross-site route.
 */
function bodyReadAsJson(req: Request): Request {
  if (!req.body || req.headers.get('content-length') === '0') return req;
  if (isJsonMediaType(req.headers.get('content-type') ?? '')) return req;
  const headers = new Headers(req.headers);
  headers.set('content-type', 'application/json');
  return new Request(req, { headers });
}

const apiBodiesAsJson: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.req.raw = bodyReadAsJson(c.req.raw);
  return next();
};

/**
 * The router's answer when no route took the request, in the management API's error shape: 405
 * with `Allow` for a path that takes other methods (contract §2), else 404.
 */
function notFound(methodsAt: (path: string) => string[]): NotFoundHandler<AppEnv> {
  return (c) => {
    const allow = methodsAt(c.req.path);
    if (allow.length === 0)
      return c.json({ error: { code: 'NOT_FOUND', message: `no route ${c.req.method} ${c.req.path}` } }, 404);
    const answer = methodNotAllowed(c.req.method, c.req.path, allow);
    c.header('Allow', answer.allow);
    return c.json({ error: { code: 'METHOD_NOT_ALLOWED', message: answer.message } }, 405);
  };
}

/** What one management app is built with beside the common parts: the console, and the API's route groups. */
export interface ManagementParts {
  /** The console, mounted under /console; absent from an app that serves the API alone. */
  console?: Hono<ConsoleEnv>;
  /** The API's route groups behind its gates (none: the gates alone, before their 401 and 404). */
  groups: ReadonlyArray<OpenAPIHono<AppEnv>>;
  /** Every route of the management side, for a 405's `Allow` (routes/route-table.ts). */
  allRoutes: ReadonlyArray<{ method: string; path: string }>;
}

/**
 * Builds a management app: the request scope and body limits, /healthz, the API reference, the
 * routes that take no caller, the API's gates in front of `parts.groups`, the OpenAPI document
 * (imported with its first request), and the console when given. {@link buildManagementFetch}
 * builds one per target, so a request builds only the routes of its own.
 */
export function buildManagementApp(options: WorkerOptions, parts: ManagementParts): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();

  app.use('*', requestScope(options));
  app.use('/api/*', apiBodiesAsJson);
  app.use('/console/*', boundedBodies);
  app.use('/api/*', boundedBodies);
  app.route('/', healthRoutes);
  app.get('/', (c) => c.redirect('/console', 302));
  if (parts.console) app.route('/console', parts.console);

  // The reference page is public and needs no caller: it is answered before the API's middleware.
  app.route('/api/v1', apiDocsRoutes);
  // `tether login`'s token and device routes take no credential: what proves a request is in its body.
  app.route('/api/v1', cliTokenRoutes);
  // What the deployment offers (kinds, engines) is public too: it says nothing of any project.
  app.route('/api/v1', kindsRoutes);
  app.route('/api/v1', apiRoutes(parts.groups));

  app.get('/api/v1/openapi.json', async (c) => c.json(await servedDocument(c.get('config').PUBLIC_BASE_URL)));

  app.notFound(notFound(allowedMethods([...parts.allRoutes, ...app.routes])));
  app.onError(onError);
  return app;
}

// Built on first request and kept for the isolate: the routes never change while it lives.
let served: { base: string; doc: Promise<Record<string, unknown>> } | undefined;

/** The OpenAPI document as served from `base`, its module (every route group) imported with the first ask. */
function servedDocument(base: string): Promise<Record<string, unknown>> {
  if (served?.base !== base) {
    const doc = import('./api-document').then(({ apiDocument }) => apiDocument(base));
    served = { base, doc };
    // A failed build is tried again by the next request.
    doc.catch(() => {
      if (served?.doc === doc) served = undefined;
    });
  }
  return served.doc;
}

/**
 * A request whose path names a service by name, routed as the same path with its id. Without a
 * valid environment it goes on unchanged, and the app answers BAD_ENVIRONMENT as for any path.
 */
export async function servicesByName(request: Request, env: Bindings): Promise<Request> {
  if (!namedServiceIn(pathOf(request.url))) return request;
  let config: Config;
  try {
    config = loadConfig(env);
  } catch {
    return request;
  }
  return withServiceIds(request, () => createHttpDb(config.DATABASE_URL, config.NEON_HTTP_ENDPOINT));
}

/**
 * The app a request is served by: the console's, a route group's, the services of the kinds
 * plugins register (routes/plugin-services.ts), or the base (every other route, the gates' 401,
 * 404 and 405).
 */
type Target = 'console' | RouteTarget | 'plugin-services';

/** A path under a project's services of one kind: its segment. */
const SERVICES_PATH = /^\/api\/v1\/projects\/[^/]+\/([a-z-]+)(?:\/|$)/;

/** Whether `path` is under the services of a kind a plugin registers (its descriptor brings their creation). */
function isPluginServicesPath(path: string): boolean {
  const segment = SERVICES_PATH.exec(path)?.[1];
  const kind = segment === undefined ? undefined : kindOfSegment(segment);
  return kind !== undefined && isPluginKind(kind);
}

/** The routes of the route table as Hono lists them, for `Allow`. */
const TABLE_ROUTES = ROUTE_TABLE.map(([, method, path]) => ({ method, path }));

/**
 * The management side's fetch. A request goes to the app of its target, built (and its route
 * group imported) with the first request it serves: /console and below to the console's, a
 * method and path of a route group (routes/route-table.ts, first match, a HEAD as its GET) to
 * that group's, anything else to the base app. Each app holds the same request scope, body
 * limits, gates and error answers, so a request is answered as one app with every route would
 * answer it.
 */
export function buildManagementFetch(options: WorkerOptions = {}): Fetch {
  const targetOf = routeTargets(ROUTE_TABLE);
  const apps = new Map<Target, () => Promise<OpenAPIHono<AppEnv>>>();
  const build = (target: Target): Promise<OpenAPIHono<AppEnv>> => {
    let load = apps.get(target);
    if (!load) {
      load = loadOnce(async () => {
        if (target === 'console') {
          // The console's pages call the API side by side: every group is built first, so no
          // call of a page waits for another's import.
          await Promise.all(ROUTE_GROUP_NAMES.map(build));
          const { consoleApp } = await import('./console');
          const ui = consoleApp((req, env, ctx) => fetch(req, env, ctx));
          return buildManagementApp(options, { console: ui, groups: [], allRoutes: TABLE_ROUTES });
        }
        const groups =
          target === 'base'
            ? []
            : target === 'plugin-services'
              ? [(await import('./routes/plugin-services')).pluginServicesRoutes()]
              : [await ROUTE_GROUPS[target]()];
        return buildManagementApp(options, { groups, allRoutes: TABLE_ROUTES });
      });
      apps.set(target, load);
    }
    return load();
  };
  const fetch: Fetch = async (request, env, ctx) => {
    const path = pathOf(request.url);
    const routed: Target =
      path === '/console' || path.startsWith('/console/') ? 'console' : targetOf(request.method, path);
    const target = routed === 'base' && isPluginServicesPath(path) ? 'plugin-services' : routed;
    return (await build(target)).fetch(request, env, ctx);
  };
  return fetch;
}

/**
 * The lookup of a method and path's target in `table`: its first route that takes them, else the
 * base app. A route's pattern is compiled only once a path starts with its fixed part (the part
 * before its first parameter), so a first request compiles the few that could take it.
 */
export function routeTargets(table: RouteTable): (method: string, path: string) => RouteTarget {
  const routes = table.map(([target, method, path]) => ({
    target,
    method,
    path,
    fixed: path.slice(0, path.search(/[:*]|$/)),
    pattern: undefined as RegExp | undefined,
  }));
  return (method, path) => {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const takes = (r: (typeof routes)[number]) => {
      if (r.method !== wanted || !path.startsWith(r.fixed)) return false;
      r.pattern ??= routePattern(r.path);
      return r.pattern.test(path);
    };
    return routes.find(takes)?.target ?? 'base';
  };
}

/**
 * The route table the management side dispatches by, as one app with every route lists them:
 * each route's method and path, in the order the router tries them, with the app that serves it
 * (a route group's name, or `base`). `npm run routes:table` writes it to routes/route-table.ts.
 */
export async function managementRouteTable(): Promise<RouteTable> {
  const names = ROUTE_GROUP_NAMES;
  const groups = await Promise.all(names.map((name) => ROUTE_GROUPS[name]()));
  const routesOf = (app: OpenAPIHono<AppEnv>) =>
    new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
  const base = routesOf(buildManagementApp({}, { groups: [], allRoutes: [] }));
  const byGroup = names.map((name, i) => ({
    name,
    routes: routesOf(buildManagementApp({}, { groups: [groups[i] as OpenAPIHono<AppEnv>], allRoutes: [] })),
  }));
  const all = routesOf(buildManagementApp({}, { groups, allRoutes: [] }));
  return [...all].map((route): RouteTable[number] => {
    const [method = '', path = ''] = route.split(' ');
    const owner = base.has(route) ? 'base' : byGroup.find((g) => g.routes.has(route))?.name;
    if (!owner) throw new Error(`no app serves ${route}`);
    return [owner, method, path];
  });
}
