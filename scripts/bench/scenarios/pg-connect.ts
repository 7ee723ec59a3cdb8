/**
 * Connect (POST .../connections, kind database) p50 latency against the same CREATE ROLE and
 * GRANT statements run directly with a Postgres client, in the same run (issue 4: <= 1.5x).
 * The target's baseline keeps one connection open; a baseline opening a new connection per
 * login (as the Worker must) is reported beside it.
 */
import { createProject } from '../api';
import { physicalNameOf, timeDirectLogins } from '../pg-direct';
import { atMostRatio, holds, measurement, ratio } from '../stats';
import type { Scenario } from '../types';
import { connectionsPath, createDatabases, createSites } from './fixtures';

const CONNECTS = 40;

interface State {
  databaseId: string;
  paths: string[];
}

/** Sequential connects of 40 sites to one database, and the direct-SQL baselines. */
export const pgConnectScenario: Scenario<State> = {
  name: 'connect POST vs direct SQL',
  issue: 4,
  target: 'p50 connect POST <= 1.30x p50 of the same statements on a new pg connection each',
  requires: ['POST /api/v1/projects/{id}/sites/{siteId}/connections'],
  async setup(ctx) {
    const projectId = await createProject(ctx.api, 'bench connect latency');
    const [databaseId] = await createDatabases(ctx.api, projectId, 1);
    const sites = await createSites(ctx.api, projectId, CONNECTS, 'connect');
    const paths = sites.map((id) => connectionsPath(projectId, id));
    return { databaseId: databaseId as string, paths };
  },
  async measure(ctx, { databaseId, paths }) {
    const headers = { authorization: ctx.api.authorization, 'content-type': 'application/json' };
    const body = JSON.stringify({ kind: 'database', resource_id: databaseId, level: 'connect' });
    const api = await ctx.load({
      connections: 1,
      mode: 'once',
      requests: paths.map((path) => ({ method: 'POST', path, headers, body })),
      expectStatus: [201],
    });
    const db = await physicalNameOf(ctx.stack.metadataUrl, databaseId);
    const open = await timeDirectLogins(ctx.stack.adminUrl, db, CONNECTS, false);
    const fresh = await timeDirectLogins(ctx.stack.adminUrl, db, CONNECTS, true);
    const direct = measurement(
      open,
      open.reduce((a, b) => a + b, 0),
      0,
      { '200': open.length },
    );
    const directFresh = measurement(
      fresh,
      fresh.reduce((a, b) => a + b, 0),
      0,
      { '200': fresh.length },
    );
    return [
      {
        scenario: 'connect POST (sequential)',
        issue: this.issue,
        measurement: api,
        floorRatio: null,
        checks: [
          atMostRatio(
            ratio(api.latency.p50, directFresh.latency.p50),
            1.3,
            'direct p50, new connection each',
          ),
          holds('no errors', api.errors === 0, String(api.errors)),
        ],
        note: `${CONNECTS} connects; vs one open pg connection: ${ratio(api.latency.p50, direct.latency.p50)?.toFixed(2)}x`,
      },
      {
        scenario: 'direct SQL, open connection',
        issue: this.issue,
        measurement: direct,
        floorRatio: null,
        checks: [],
      },
      {
        scenario: 'direct SQL, new connection each',
        issue: this.issue,
        measurement: directFresh,
        floorRatio: null,
        checks: [],
      },
    ];
  },
};
