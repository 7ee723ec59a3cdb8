/**
 * 100 connects in parallel on one database (no error, 100 distinct roles), within 2x
 * the wall time of the same 100 role creations from 100 parallel direct connections, measured
 * in the same run.
 */

import { loginRolesInGroup, physicalNameOf, rolesOfDatabase, timeParallelDirectLogins } from '../pg-direct';
import { createProject } from '../setup-client';
import { atMostRatio, holds, ratio } from '../stats';
import type { Scenario } from '../types';
import { connectionsPath, createDatabases, createSites } from './fixtures';

const PARALLEL = 100;

interface State {
  databaseId: string;
  paths: string[];
}

/** 100 sites connect to one database at once. */
export const pgParallelScenario: Scenario<State> = {
  name: '100 parallel connects',
  issue: 4,
  target: 'no error, 100 distinct roles, wall time <= 2x 100 parallel direct role creations',
  requires: ['POST /api/v1/projects/{id}/sites/{siteId}/connections'],
  async setup(ctx) {
    const projectId = await createProject(ctx.api, 'bench parallel connects');
    const [databaseId] = await createDatabases(ctx.api, projectId, 1);
    const sites = await createSites(ctx.api, projectId, PARALLEL, 'parallel');
    return { databaseId: databaseId as string, paths: sites.map((id) => connectionsPath(projectId, id)) };
  },
  async measure(ctx, { databaseId, paths }) {
    const headers = { authorization: ctx.api.authorization, 'content-type': 'application/json' };
    const body = JSON.stringify({ kind: 'database', resource_id: databaseId });
    const m = await ctx.load({
      connections: PARALLEL,
      mode: 'once',
      requests: paths.map((path) => ({ method: 'POST', path, headers, body })),
      expectStatus: [201],
      timeoutSec: 60,
    });
    const roles = await rolesOfDatabase(ctx.stack.metadataUrl, databaseId);
    // Roles on the cluster beyond those a stored connection names were left behind by a failed connect.
    const owner = `${await physicalNameOf(ctx.stack.metadataUrl, databaseId)}_rw`;
    const onCluster = await loginRolesInGroup(ctx.stack.adminUrl, owner);
    const directWallMs = await timeParallelDirectLogins(ctx.stack.adminUrl, owner.slice(0, -3), PARALLEL);
    // The ceiling: the connects' unavoidable work alone through the Worker (bench-entry.ts connect-work).
    const work = await ctx.load({
      connections: PARALLEL,
      mode: 'once',
      requests: Array.from({ length: PARALLEL }, () => ({
        method: 'POST',
        path: `/__bench/connect-work/${owner.slice(0, -3)}`,
      })),
      expectStatus: [201],
      timeoutSec: 60,
    });
    return [
      {
        scenario: this.name,
        issue: this.issue,
        measurement: m,
        floorRatio: null,
        checks: [
          holds(
            'no errors',
            m.errors === 0 && m.requests === PARALLEL,
            `${m.errors} errors of ${m.requests}`,
          ),
          holds(
            `${PARALLEL} distinct roles`,
            roles.distinctExisting === PARALLEL,
            String(roles.distinctExisting),
          ),
          atMostRatio(ratio(m.wallMs, directWallMs), 2, 'direct parallel wall time'),
        ],
        note: `wall time ${(m.wallMs / 1000).toFixed(2)} s for ${PARALLEL} connects at once (direct: ${(directWallMs / 1000).toFixed(2)} s from ${PARALLEL} new connections at once); statuses ${JSON.stringify(m.statusCounts)}; ${onCluster - roles.distinctExisting} role(s) on the cluster without a connection`,
        details: { wallMs: m.wallMs, directWallMs, roles, rolesOnCluster: onCluster },
      },
      {
        scenario: "ceiling: 100 connects' work at once, no framework",
        issue: this.issue,
        measurement: work,
        floorRatio: null,
        checks: [holds('no errors', work.errors === 0, `${work.errors} errors of ${work.requests}`)],
        note: `wall time ${(work.wallMs / 1000).toFixed(2)} s: two metadata round trips around createLogin, 100 at once (${ratio(work.wallMs, directWallMs)?.toFixed(2)}x the direct wall time); the connects took ${ratio(m.wallMs, work.wallMs)?.toFixed(2)}x this`,
      },
    ];
  },
};
