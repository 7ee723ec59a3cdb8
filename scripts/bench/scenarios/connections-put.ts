/**
 * PUT replace of a site's 100 connections with one level changed, against a PUT of a site's
 * single connection with its level changed (p50 of the first within 2x of the
 * second). Each PUT moves exactly one connection, so both do the same outside work (one
 * role's grants) and differ only in the size of the set they validate and compare.
 */
import { createProject } from '../setup-client';
import { atMostRatio, combine, holds, type Measurement, ratio } from '../stats';
import type { LoadRequest, Scenario } from '../types';
import { connectionsPath, createDatabases, createSites, type DesiredConnection } from './fixtures';

const SET_SIZE = 100;
/** PUTs per variant, sent in alternating batches so background work (queued patches) hits both alike. */
const ROUNDS = 40;
const BATCHES = 4;

interface State {
  bigPath: string;
  smallPath: string;
  databases: string[];
}

const flip = (level: string): string => (level === 'connect' ? 'read-only' : 'connect');

/** PUT bodies, each differing from the one before by one connection's level. */
export function flippingBodies(ids: readonly string[], rounds: number): string[] {
  const levels = ids.map(() => 'connect');
  const bodies: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const k = i % ids.length;
    levels[k] = flip(levels[k] as string);
    const connections: DesiredConnection[] = ids.map((id, j) => ({
      kind: 'database',
      resource_id: id,
      level: levels[j] as string,
    }));
    bodies.push(JSON.stringify({ connections }));
  }
  return bodies;
}

/** PUT replace latency for 100 vs 1 connection. */
export const connectionsPutScenario: Scenario<State> = {
  name: 'PUT connections 100 vs 1',
  issue: 3,
  target: 'p50 PUT of 100 (1 changed) <= 2.00x p50 PUT of 1',
  requires: ['PUT /api/v1/projects/{id}/sites/{siteId}/connections'],
  async setup(ctx) {
    const projectId = await createProject(ctx.api, 'bench connections put');
    const databases = await createDatabases(ctx.api, projectId, SET_SIZE);
    const [big, small] = await createSites(ctx.api, projectId, 2, 'put');
    const bigPath = connectionsPath(projectId, big as string);
    const smallPath = connectionsPath(projectId, small as string);
    const all = databases.map((id) => ({ kind: 'database', resource_id: id, level: 'connect' }));
    await ctx.api.call('PUT', bigPath, { connections: all });
    await ctx.api.call('PUT', smallPath, { connections: all.slice(0, 1) });
    return { bigPath, smallPath, databases };
  },
  async measure(ctx, { bigPath, smallPath, databases }) {
    const headers = { authorization: ctx.api.authorization, 'content-type': 'application/json' };
    const puts = (path: string, bodies: string[]): LoadRequest[] =>
      bodies.map((body) => ({ method: 'PUT', path, headers, body }));
    const run = (requests: LoadRequest[]) =>
      ctx.load({ connections: 1, mode: 'once', requests, expectStatus: [200], keepSamples: true });
    const smallPuts = puts(smallPath, flippingBodies(databases.slice(0, 1), ROUNDS));
    const bigPuts = puts(bigPath, flippingBodies(databases, ROUNDS));
    const smallRuns: Measurement[] = [];
    const bigRuns: Measurement[] = [];
    const size = ROUNDS / BATCHES;
    for (let b = 0; b < BATCHES; b++) {
      smallRuns.push(await run(smallPuts.slice(b * size, (b + 1) * size)));
      bigRuns.push(await run(bigPuts.slice(b * size, (b + 1) * size)));
    }
    const small = combine(smallRuns);
    const big = combine(bigRuns);
    const r = ratio(big.latency.p50, small.latency.p50);
    return [
      {
        scenario: 'PUT 1 connection, 1 changed',
        issue: this.issue,
        measurement: small,
        floorRatio: null,
        checks: [holds('no errors', small.errors === 0, String(small.errors))],
        note: `${ROUNDS} sequential PUTs, each flipping the level, alternated in ${BATCHES} batches with the PUTs of 100`,
      },
      {
        scenario: 'PUT 100 connections, 1 changed',
        issue: this.issue,
        measurement: big,
        floorRatio: null,
        checks: [atMostRatio(r, 2, 'p50 of PUT 1'), holds('no errors', big.errors === 0, String(big.errors))],
        note: `${ROUNDS} sequential PUTs of the full set, each flipping one level`,
      },
    ];
  },
};
