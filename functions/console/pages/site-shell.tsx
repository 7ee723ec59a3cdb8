/** The frame of a site's pages: heading, the Connections / Variables / Deploys / Delivery tabs and the site's deletion. */
import type { Child } from 'hono/jsx';
import { consolePath } from '../actions';
import type { Project, Site } from '../api-shapes';
import { ApiFailure, type ConsoleApi, path } from '../console-api';
import type { Flash } from '../flash';
import { Card, ConfirmForm, Layout } from '../layout';
import { canWrite } from '../role-offers';

export type SiteTab = 'connections' | 'variables' | 'deploys' | 'delivery';
const TABS: { tab: SiteTab; label: string }[] = [
  { tab: 'connections', label: 'Connections' },
  { tab: 'variables', label: 'Variables' },
  { tab: 'deploys', label: 'Deploys' },
  { tab: 'delivery', label: 'Delivery' },
];

/** The project and the site a site page names (read together with the tab's own data). */
export async function loadSite(
  api: ConsoleApi,
  p: string,
  siteId: string,
): Promise<{ project: Project; site: Site }> {
  const [project, { sites }] = await Promise.all([
    api.get<Project>(path`/projects/${p}`),
    api.get<{ sites: Site[] }>(path`/projects/${p}/sites`),
  ]);
  const site = sites.find((s) => s.id === siteId.toLowerCase());
  if (!site) throw new ApiFailure(404, 'NOT_FOUND', 'site not found');
  return { project, site };
}

export function SitePage(props: {
  project: Project;
  site: Site;
  tab: SiteTab;
  csrf: string;
  flash?: Flash;
  children?: Child;
}) {
  const { project, site, tab, csrf } = props;
  return (
    <Layout
      title={`Site ${site.slug}`}
      crumbs={[
        { href: consolePath.project(project.slug), label: project.name },
        { href: consolePath.site(project.slug, site.id), label: site.slug },
      ]}
      csrf={csrf}
      flash={props.flash}
    >
      <nav aria-label="Site sections">
        <ul class="tabs">
          {TABS.map((t) => (
            <li>
              <a
                href={consolePath.site(project.slug, site.id, t.tab)}
                aria-current={t.tab === tab ? 'page' : undefined}
              >
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {props.children}
      {canWrite(project) && tab === 'connections' && (
        <Card id="delete-site" title="Delete this site">
          <p>Its connections and their credentials go with it.</p>
          <ConfirmForm
            action={`${consolePath.site(project.slug, site.id, 'delete')}`}
            csrf={csrf}
            label="Delete site"
            question={`Delete site ${site.slug} and all its connections?`}
          />
        </Card>
      )}
    </Layout>
  );
}
