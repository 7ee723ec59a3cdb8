/** A site's Deploys tab: its newest deploys, a new deploy and a rollback to any of them. */
import { Hono } from 'hono';
import { act, consolePath } from '../actions';
import { path } from '../api';
import { type ConsoleEnv, signedIn } from '../context';
import { When } from '../format';
import { CsrfField } from '../layout';
import { canWrite } from '../roles';
import type { Deploy } from '../types';
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
      <section class="card" aria-labelledby="deploys-heading">
        <h2 id="deploys-heading">Deploys</h2>
        {writer && (
          <form method="post" action={action('deploys')} class="inline">
            <CsrfField csrf={csrf} />
            <button type="submit">Deploy</button>
          </form>
        )}
        {deploys.length === 0 ? (
          <p>Not deployed yet.</p>
        ) : (
          <div class="table-wrap">
            <table class="stack-sm">
              <thead>
                <tr>
                  <th scope="col">Deployed</th>
                  <th scope="col">Deploy</th>
                  <th scope="col">Variables handed</th>
                  {writer && <th scope="col">Roll back</th>}
                </tr>
              </thead>
              <tbody>
                {deploys.map((d) => (
                  <tr>
                    <td>
                      <When at={d.created_at} />
                    </td>
                    <td>
                      <code>{d.id.slice(0, 8)}</code>
                      {d.rollback_of ? (
                        <span class="hint"> rollback of {d.rollback_of.slice(0, 8)}</span>
                      ) : null}
                    </td>
                    <td class="names">{d.env_names.join(' ')}</td>
                    {writer && (
                      <td>
                        <form method="post" action={action(`deploys/${d.id}/rollback`)} class="inline">
                          <CsrfField csrf={csrf} />
                          <button type="submit">Roll back</button>
                        </form>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
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
