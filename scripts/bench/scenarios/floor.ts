/** The floor of this machine and runtime: GET /healthz, which touches neither database nor Durable Object. */
import { holds } from '../stats';
import type { Scenario } from '../types';

/** GET /healthz at full speed; every other throughput is reported as a ratio to this one. */
export const floorScenario: Scenario<null> = {
  name: 'floor GET /healthz',
  issue: 2,
  target: 'reference (no target)',
  async setup() {
    return null;
  },
  async measure(ctx) {
    const m = await ctx.load({
      connections: ctx.settings.connections,
      mode: 'cycle',
      durationSec: ctx.settings.durationSec,
      warmupSec: ctx.settings.warmupSec,
      requests: [{ method: 'GET', path: '/healthz' }],
      expectStatus: [200],
    });
    return [
      {
        scenario: this.name,
        issue: this.issue,
        measurement: m,
        checks: [holds('no errors', m.errors === 0, String(m.errors))],
      },
    ];
  },
};
