/**
 * Every documented route with a request that succeeds on the round-trip fixture: the walk that
 * round-trip-budgets.test.ts and query-plans.test.ts share. A GET is called with the fixture's
 * ids in its path; a write needs a row in round-trip-writes.ts, an auth route one in
 * round-trip-auth-requests.ts.
 */
import { api } from './api';
import { type Call, fill, type RoundTripWorld } from './round-trip-fixture';

/** Every route of the OpenAPI document, as [METHOD, path]. */
export async function documentedRoutes(w: RoundTripWorld): Promise<Array<[string, string]>> {
  const res = await api(w.worker.baseUrl).get<{ paths: Record<string, Record<string, unknown>> }>(
    '/api/v1/openapi.json',
  );
  const routes: Array<[string, string]> = [];
  for (const [path, ops] of Object.entries(res.body.paths))
    for (const method of Object.keys(ops)) routes.push([method.toUpperCase(), path]);
  return routes;
}

/** The request a documented route is measured with, or why there is none. */
export function routeRequest(
  w: RoundTripWorld,
  made: Record<string, () => Promise<Call>>,
  method: string,
  path: string,
): (() => Promise<Call>) | string {
  const route = `${method} ${path}`;
  const known = made[route];
  if (known) return known;
  if (method !== 'GET') return `${route}: add a request to WRITES`;
  const filled = fill(w.f, path);
  if (filled === undefined) return `${route}: add its path parameter to fill()`;
  // The tunnel answers a plain GET 426 after every check it makes before opening a socket.
  const ok = path.endsWith('/tunnel/{dbId}') ? [426] : [200];
  return async () => ({ method, path: filled, ok });
}
