import { describe, expect, it } from 'vitest';
import { runScenario } from '../../scripts/bench/runner';
import { flippingBodies } from '../../scripts/bench/scenarios/connections-put';
import { isRouterNotFound, RouteMissingError } from '../../scripts/bench/setup-client';
import { measurement } from '../../scripts/bench/stats';
import type { BenchContext, Scenario } from '../../scripts/bench/types';

const floor = measurement([1, 1, 2], 1000, 0, { '200': 4000 });

function context(routes: string[]): BenchContext {
  // Only the fields runScenario reads; a scenario under test touches nothing else.
  return { floor, routes: new Set(routes) } as unknown as BenchContext;
}

function scenario(measure: Scenario['measure'], requires?: string[]): Scenario {
  return { name: 'probe', issue: 9, target: '>= 0.50x floor', requires, setup: async () => null, measure };
}

describe('bench runner', () => {
  it('a route absent from the OpenAPI document skips the scenario without running it', async () => {
    let ran = false;
    const rows = await runScenario(
      context(['GET /api/v1/projects']),
      scenario(async () => {
        ran = true;
        return [];
      }, ['GET /api/v1/projects/{id}/things']),
    );
    expect(ran).toBe(false);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.note).toBe('skipped: route missing (GET /api/v1/projects/{id}/things)');
    expect(rows[0]?.checks).toEqual([]);
  });

  it("the router's 404 during setup or measure is reported as skipped, not as a crash", async () => {
    const rows = await runScenario(
      context([]),
      scenario(async () => {
        throw new RouteMissingError('POST /v1/app/oauth/exchange');
      }),
    );
    expect(rows[0]?.note).toBe('skipped: route missing (POST /v1/app/oauth/exchange)');
  });

  it('any other failure is a failed row naming the error', async () => {
    const rows = await runScenario(
      context([]),
      scenario(async () => {
        throw new Error('probe exchange answered 500');
      }),
    );
    expect(rows[0]?.note).toBe('error: probe exchange answered 500');
    expect(rows[0]?.checks.map((c) => c.pass)).toEqual([false]);
  });

  it('fills the floor ratio of throughput rows and leaves latency rows (floorRatio null) alone', async () => {
    const fast = measurement([1], 1000, 0, { '200': 2000 });
    const rows = await runScenario(
      context([]),
      scenario(async () => [
        { scenario: 'throughput', issue: 9, measurement: fast, checks: [] },
        { scenario: 'latency', issue: 9, measurement: fast, floorRatio: null, checks: [] },
      ]),
    );
    expect(rows[0]?.floorRatio).toBe(0.5);
    expect(rows[1]?.floorRatio).toBeNull();
  });
});

describe('bench route-missing detection', () => {
  it("recognises the management router's 404 and the auth service's, not a handler's", () => {
    const router = JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no route GET /api/v1/x' } });
    const handler = JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no such project' } });
    expect(isRouterNotFound('/api/v1/x', router)).toBe(true);
    expect(isRouterNotFound('/api/v1/projects/p', handler)).toBe(false);
    expect(isRouterNotFound('/v1/app/oauth/exchange', JSON.stringify({ error: 'not found' }))).toBe(true);
    expect(isRouterNotFound('/v1/app/oauth/exchange', JSON.stringify({ error: 'unknown app' }))).toBe(false);
    expect(isRouterNotFound('/api/v1/x', 'not json')).toBe(false);
  });
});

describe('bench PUT bodies', () => {
  it('each PUT differs from the one before by exactly one level', () => {
    const ids = ['a', 'b', 'c'];
    const levels = flippingBodies(ids, 7).map((body) =>
      (JSON.parse(body) as { connections: Array<{ level: string }> }).connections.map((c) => c.level),
    );
    let previous = ['connect', 'connect', 'connect'];
    for (const current of levels) {
      expect(current.filter((level, i) => level !== previous[i])).toHaveLength(1);
      previous = current;
    }
  });
});
