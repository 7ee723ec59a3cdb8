/**
 * Connect (POST .../connections, kind database) p50 latency against the same CREATE ROLE and
 * GRANT statements run directly with a Postgres client, in the same run (<= 1.3x).
 * The target's baseline opens a new connection per login, as the Worker must; one keeping its
 * connection open is reported beside it, and the ceiling: the connect's own unavoidable work
 * through the Worker's driver (bench-entry.ts connect-work). All alternate in four slices of ten.
 */

import { type CpuGroup, type CpuReading, cpuPerRequest, readCpu } from '../cpu';
import { physicalNameOf, timeDirectLogins } from '../pg-direct';
import { createProject } from '../setup-client';
import { atMostRatio, combine, holds, type Measurement, measurement, ratio } from '../stats';
import type { Scenario } from '../types';
import { connectionsPath, createDatabases, createSites } from './fixtures';

const CONNECTS = 40;

/** Runs `work`, adding the CPU each process group spent meanwhile to `sum` (as ctx.load measures its runs). */
async function withCpu<T>(sum: CpuReading, work: () => Promise<T>): Promise<T> {
  const before = readCpu();
  const result = await work();
  const after = readCpu();
  for (const group of Object.keys(after) as CpuGroup[])
    sum[group] = (sum[group] ?? 0) + ((after[group] ?? 0) - (before[group] ?? 0));
  return result;
}
/** Slices in which the connects and the direct logins alternate. */
const SLICES = 4;

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
    const requests = paths.map((path) => ({ method: 'POST', path, headers, body }));
    const db = await physicalNameOf(ctx.stack.metadataUrl, databaseId);
    // Alternated slices, so the other work on the shared machine falls on all three alike.
    const apiRuns: Measurement[] = [];
    const workRuns: Measurement[] = [];
    const work = { method: 'POST', path: `/__bench/connect-work/${db}` };
    const open: number[] = [];
    const fresh: number[] = [];
    const per = CONNECTS / SLICES;
    const freshCpu: CpuReading = {};
    const openCpu: CpuReading = {};
    for (let slice = 0; slice < SLICES; slice++) {
      apiRuns.push(
        await ctx.load({
          connections: 1,
          mode: 'once',
          requests: requests.slice(slice * per, (slice + 1) * per),
          expectStatus: [201],
          keepSamples: true,
        }),
      );
      workRuns.push(
        await ctx.load({
          connections: 1,
          mode: 'once',
          requests: Array.from({ length: per }, () => work),
          expectStatus: [201],
          keepSamples: true,
        }),
      );
      fresh.push(...(await withCpu(freshCpu, () => timeDirectLogins(ctx.stack.adminUrl, db, per, true))));
      open.push(...(await withCpu(openCpu, () => timeDirectLogins(ctx.stack.adminUrl, db, per, false))));
    }
    const { samples: _samples, ...api } = combine(apiRuns);
    const { samples: _workSamples, ...ceiling } = combine(workRuns);
    const direct = {
      ...measurement(
        open,
        open.reduce((a, b) => a + b, 0),
        0,
        { '200': open.length },
      ),
      cpu: cpuPerRequest({}, openCpu, open.length),
    };
    const directFresh = {
      ...measurement(
        fresh,
        fresh.reduce((a, b) => a + b, 0),
        0,
        { '200': fresh.length },
      ),
      cpu: cpuPerRequest({}, freshCpu, fresh.length),
    };
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
        note: `${CONNECTS} connects; ${ratio(api.latency.p50, ceiling.latency.p50)?.toFixed(2)}x the p50 of its unavoidable work through the Worker (ceiling row); vs one open pg connection: ${ratio(api.latency.p50, direct.latency.p50)?.toFixed(2)}x`,
      },
      {
        scenario: "ceiling: the connect's work, no framework",
        issue: this.issue,
        measurement: ceiling,
        floorRatio: null,
        checks: [holds('no errors', ceiling.errors === 0, String(ceiling.errors))],
        note: `two metadata round trips (select 1) around the adapter's createLogin at level connect (a new admin session through the Worker's driver and the WebSocket proxy, its SCRAM login, one multi-statement query): ${ratio(ceiling.latency.p50, directFresh.latency.p50)?.toFixed(2)}x the direct p50 on a new connection each`,
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
