/** A site's Deploys tab: its newest deploys, a new deploy and a rollback to any of them. */
import { Hono } from 'hono';
import { act, consolePath } from '../actions';
import type { Deploy } from '../api-shapes';
import { Names } from '../components';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { PostButton } from '../controls';
import { When } from '../format';
import { Card } from '../layout';
import { canWrite } from '../role-offers';
import { DataTable } from '../table';
import { loadSite, SitePage } from './site-shell';

export const siteDeploysPages = new Hono<ConsoleEnv>();

siteDeploysPages.get('/projects/:p/sites/:s/deploys', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { p, s } = c.req.param();
  const [{ project, site }, { deploys }] = await Promise.all([
    loadSite(api, p, s),
    api.get<{ deploys: Deploy[] }>(path`/projects/${p}/sites/${s}/deploys`),
  ]);
  const writer = canWrite(project);
  const action = (what: string) => consolePath.site(project.slug, site.id, what);
  return c.html(
    <SitePage project={project} site={site} tab="deploys" csrf={csrf} flash={flash}>
      <Card id="deploys" title="Deploys">
        {writer && <PostButton action={action('deploys')} csrf={csrf} label="Deploy" />}
        <DataTable
          rows={deploys}
          empty="Not deployed yet."
          columns={[
            { label: 'Deployed', cell: (d) => <When at={d.created_at} /> },
            {
              label: 'Deploy',
              cell: (d) => (
                <>
                  <code>{d.id.slice(0, 8)}</code>
                  {d.rollback_of ? <span class="hint"> rollback of {d.rollback_of.slice(0, 8)}</span> : null}
                </>
              ),
            },
            { label: 'Variables handed', class: 'names', cell: (d) => <Names names={d.env_names} /> },
            {
              label: 'Roll back',
              when: writer,
              cell: (d) => (
                <PostButton
                  action={action(`deploys/${d.id}/rollback`)}
                  csrf={csrf}
                  label="Roll back"
                  secondary
                />
              ),
            },
          ]}
        />
      </Card>
    </SitePage>,
  );
});

siteDeploysPages.post('/projects/:p/sites/:s/deploys', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  return act(c, consolePath.site(p, s, 'deploys'), async () => {
    const d = await api.post<Deploy>(path`/projects/${p}/sites/${s}/deploys`);
    return `Deployed ${d.id.slice(0, 8)} with ${d.env_names.length} variable(s).`;
  });
});

siteDeploysPages.post('/projects/:p/sites/:s/deploys/:d/rollback', async (c) => {
  const { api } = signedIn(c);
  const { p, s, d } = c.req.param();
  return act(c, consolePath.site(p, s, 'deploys'), async () => {
    const r = await api.post<Deploy>(path`/projects/${p}/sites/${s}/deploys/${d}/rollback`);
    return `Rolled back to ${d.slice(0, 8)} as deploy ${r.id.slice(0, 8)}.`;
  });
});
