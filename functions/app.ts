/**
 * The Worker's fetch: the auth service under /v1 is answered by the auth edge (auth-edge.ts);
 * everything else (/healthz, the console, the management API) by the management side
 * (management-app.ts). Each is imported with the first request that needs it, so a sign-in on a
 * fresh isolate never waits for the console, the management routes' schemas or the OpenAPI
 * document, and a management answer never for the auth routes.
 */

import type { Fetch } from './app-env';
import type { WorkerOptions } from './container';
import { loadOnce } from './lib/load-once';
import { pathOf } from './lib/request-path';

/** The auth service's paths: the auth edge answers every request whose path starts so. */
const AUTH_PREFIX = '/v1/';

/** The auth edge's fetch, its module imported once (by the first sign-in; a failed import is tried again). */
const lazyAuthEdge = (options: WorkerOptions): (() => Promise<Fetch>) =>
  loadOnce(() =>
    import('./auth-edge').then(({ buildAuthEdge }): Fetch => {
      const app = buildAuthEdge(options);
      return (request, env, ctx) => app.fetch(request, env, ctx);
    }),
  );

/** The management app's fetch, its module imported once (the first request waits for it; a failed import is tried again). */
const lazyManagement = (options: WorkerOptions): (() => Promise<Fetch>) =>
  loadOnce(() =>
    import('./management-app').then(({ buildManagementFetch, servicesByName }): Fetch => {
      const management = buildManagementFetch(options);
      return async (request, env, ctx) => management(await servicesByName(request, env), env, ctx);
    }),
  );

/** Builds the Worker's fetch, with `options` (a test's clock) in every context it builds. */
export function buildFetch(options: WorkerOptions = {}): Fetch {
  const auth = lazyAuthEdge(options);
  const management = lazyManagement(options);
  return (request, env, ctx) =>
    (pathOf(request.url).startsWith(AUTH_PREFIX) ? auth() : management()).then((fetch) =>
      fetch(request, env, ctx),
    );
}
