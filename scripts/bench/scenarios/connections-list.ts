/**
 * GET /api/v1/projects/:id/sites/:siteId/connections for a site with 50 connections among
 * 200 services (issue 3: >= 30% of the floor). The services are 150 PostgreSQL databases and
 * 50 buckets; the 50 connections are databases, since connecting a bucket needs an IAM
 * system this machine does not have.
 */
import { createProject } from '../api';
import { atLeastRatio, holds, ratio } from '../stats';
import type { Scenario } from '../types';
import { readCeilings } from './ceilings';
import { connectionsPath, createBuckets, createDatabases, createSites } from './fixtures';

const DATABASES = 150;
const BUCKETS = 50;
const CONNECTED = 50;

interface Listing {
  connections: unknown[];
  available: unknown[];
}

/** Lists one site's connections and available entries at full speed. */
export const connectionsListScenario: Scenario<{ path: string; projectId: string }> = {
  name: 'GET site connections (50 of 200)',
  issue: 3,
  target: '>= 0.30x floor',
  requires: [
    'GET /api/v1/projects/{id}/sites/{siteId}/connections',
    'PUT /api/v1/projects/{id}/sites/{siteId}/connections',
  ],
  async setup(ctx) {
    const projectId = await createProject(ctx.api, 'bench connections list');
    // Services first, while the project has no site, so no initial connection is made.
    const databases = await createDatabases(ctx.api, projectId, DATABASES);
    await createBuckets(ctx.api, projectId, BUCKETS);
    const [siteId] = await createSites(ctx.api, projectId, 1, 'listed');
    const path = connectionsPath(projectId, siteId as string);
    const desired = databases.slice(0, CONNECTED).map((id) => ({ kind: 'database', resource_id: id }));
    await ctx.api.call('PUT', path, { connections: desired });
    const listing = await ctx.api.call<Listing>('GET', path);
    if (listing.connections.length !== CONNECTED) {
      throw new Error(`expected ${CONNECTED} connections, listed ${listing.connections.length}`);
    }
    return { path, projectId };
  },
  async measure(ctx, { path, projectId }) {
    const m = await ctx.load({
      connections: ctx.settings.connections,
      mode: 'cycle',
      durationSec: ctx.settings.durationSec,
      warmupSec: ctx.settings.warmupSec,
      requests: [{ method: 'GET', path, headers: { authorization: ctx.api.authorization } }],
      expectStatus: [200],
    });
    return [
      {
        scenario: this.name,
        issue: this.issue,
        measurement: m,
        checks: [
          atLeastRatio(ratio(m.rps, ctx.floor?.rps), 0.3, 'floor'),
          holds('no errors', m.errors === 0, String(m.errors)),
        ],
      },
      ...(await readCeilings(ctx, this.issue, projectId)),
    ];
  },
};
