/**
 * The Worker's fetch: the auth service under /v1 is answered by the auth edge (auth-edge.ts,
 * loaded with the Worker); everything else (/healthz, the console, the management API) by the
 * management app (management-app.ts), whose module is imported on the first request that needs
 * it. A sign-in on a fresh isolate so never waits for the console, the management routes'
 * schemas or the OpenAPI document to be built.
 */

import { AUTH_PREFIX, buildAuthEdge } from './auth-edge';
import type { Bindings } from './config';
import type { WorkerOptions } from './container';
import { loadOnce } from './lib/load-once';

/** A Worker's fetch handler. */
export type Fetch = (request: Request, env: Bindings, ctx: ExecutionContext) => Response | Promise<Response>;

/** The path of a request URL, read without building a URL object. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

/** The management app's fetch, its module imported once (the first request waits for it; a failed import is tried again). */
const lazyManagement = (options: WorkerOptions): (() => Promise<Fetch>) =>
  loadOnce(() =>
    import('./management-app').then(({ buildManagementApp, servicesByName }): Fetch => {
      const app = buildManagementApp(options);
      return async (request, env, ctx) => app.fetch(await servicesByName(request, env), env, ctx);
    }),
  );

/** Builds the Worker's fetch, with `options` (a test's clock) in every context it builds. */
export function buildFetch(options: WorkerOptions = {}): Fetch {
  const auth = buildAuthEdge(options);
  const management = lazyManagement(options);
  return (request, env, ctx) => {
    if (pathOf(request.url).startsWith(AUTH_PREFIX)) return auth.fetch(request, env, ctx);
    return management().then((fetch) => fetch(request, env, ctx));
  };
}
