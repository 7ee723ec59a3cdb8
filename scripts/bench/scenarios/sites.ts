/** GET /api/v1/projects/:id/sites for a project with 100 sites (issue 2: >= 40% of the floor). */
import { createProject, inParallel } from '../api';
import { atLeastRatio, holds, ratio } from '../stats';
import type { Scenario } from '../types';

const SITES = 100;

/** Lists a project's 100 sites as its account, at full speed. */
export const sitesScenario: Scenario<{ projectId: string }> = {
  name: 'GET sites (100 sites)',
  issue: 2,
  target: '>= 0.40x floor',
  requires: ['GET /api/v1/projects/{id}/sites', 'POST /api/v1/projects/{id}/sites'],
  async setup(ctx) {
    const projectId = await createProject(ctx.api, 'bench sites');
    const slugs = Array.from({ length: SITES }, (_, i) => `site-${String(i).padStart(3, '0')}`);
    await inParallel(slugs, 8, (slug) =>
      ctx.api.call('POST', `/api/v1/projects/${projectId}/sites`, { slug }),
    );
    const listed = await ctx.api.call<{ sites: unknown[] }>('GET', `/api/v1/projects/${projectId}/sites`);
    if (listed.sites.length !== SITES)
      throw new Error(`expected ${SITES} sites, listed ${listed.sites.length}`);
    return { projectId };
  },
  async measure(ctx, { projectId }) {
    const m = await ctx.load({
      connections: ctx.settings.connections,
      mode: 'cycle',
      durationSec: ctx.settings.durationSec,
      warmupSec: ctx.settings.warmupSec,
      requests: [
        {
          method: 'GET',
          path: `/api/v1/projects/${projectId}/sites`,
          headers: { authorization: ctx.api.authorization },
        },
      ],
      expectStatus: [200],
    });
    return [
      {
        scenario: this.name,
        issue: this.issue,
        measurement: m,
        checks: [
          atLeastRatio(ratio(m.rps, ctx.floor?.rps), 0.4, 'floor'),
          holds('no errors', m.errors === 0, String(m.errors)),
        ],
      },
    ];
  },
};
