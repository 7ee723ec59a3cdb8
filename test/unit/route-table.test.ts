/**
 * The route table the management side dispatches by (functions/routes/route-table.ts, generated
 * by `npm run routes:table`) is the routes' own: every method and path, in the router's order,
 * with the app that serves it. A route added, moved or removed without the table regenerated
 * fails here, before a request could reach the wrong app.
 */
import { describe, expect, it } from 'vitest';
import type { Kind } from '../../functions/domain/levels';
import { kindSegment, PROJECT_ROUTE_SEGMENTS, serviceKinds } from '../../functions/kinds/registry';
import { managementRouteTable, routeTargets } from '../../functions/management-app';
import { ROUTE_TABLE } from '../../functions/routes/route-table';

describe('the management route table', () => {
  it('is the routes own (run `npm run routes:table` after changing a route)', async () => {
    expect(ROUTE_TABLE).toEqual(await managementRouteTable());
  }, 60_000);

  it('sends a request to the first route that takes its method and path, a HEAD as its GET, the rest to the base app', () => {
    const targetOf = routeTargets([
      ['base', 'GET', '/api/v1/kinds'],
      ['projects', 'GET', '/api/v1/projects/:id'],
      ['sites', 'GET', '/api/v1/projects/:id/sites'],
      ['connections', 'GET', '/api/v1/projects/:id/sites'],
    ]);
    expect(targetOf('GET', '/api/v1/kinds')).toBe('base');
    expect(targetOf('HEAD', '/api/v1/projects/p1')).toBe('projects');
    expect(targetOf('GET', '/api/v1/projects/p1/sites')).toBe('sites');
    expect(targetOf('DELETE', '/api/v1/projects/p1/sites')).toBe('base');
    expect(targetOf('GET', '/api/v1/nowhere')).toBe('base');
  });

  it("names every segment of a project's routes among those no kind's plural may take, or as a kind's own", () => {
    const segments = new Set(
      ROUTE_TABLE.flatMap(([, , path]) => /^\/api\/v1\/projects\/:id\/([^/]+)/.exec(path)?.[1] ?? []),
    );
    const kinds = serviceKinds().map((k) => kindSegment(k.name as Kind));
    expect([...segments].sort()).toEqual([...PROJECT_ROUTE_SEGMENTS, ...kinds].sort());
  });
});
