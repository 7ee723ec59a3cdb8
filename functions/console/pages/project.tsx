/**
 * A project's overview: its health (what needs attention), the map of sites × services, a card
 * per kind with its count, items and state badges and a create form for writers, its members.
 */
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { engines } from '../../kinds/registry';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import type { AuthApp, Bucket, Connection, Database, Project, Site } from '../api-shapes';
import { Badge, SectionCard } from '../components';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { authAppLabel, engineLabel, SLUG_PATTERN } from '../format';
import { Icon, type IconName } from '../icons';
import { ConfirmPage, CsrfField, Layout } from '../layout';
import { canAdmin, canWrite } from '../role-offers';
import { viewerEmail } from '../viewer';
import { MembersSection, readMembers } from './members';
import { PluginServiceCards, readPluginServices } from './plugin-services';
import { HealthCard, type ProjectHealth } from './project-health';
import { mapColumns, ProjectMap } from './project-map';

export const projectPages = new Hono<ConsoleEnv>();

projectPages.get('/projects/:p', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const p = c.req.param('p');
  const [
    project,
    { sites },
    { databases },
    { buckets },
    { auth_apps },
    people,
    { connections },
    health,
    pluginLists,
  ] = await Promise.all([
    api.get<Project>(path`/projects/${p}`),
    api.get<{ sites: Site[] }>(path`/projects/${p}/sites`),
    api.get<{ databases: Database[] }>(path`/projects/${p}/databases`),
    api.get<{ buckets: Bucket[] }>(path`/projects/${p}/buckets`),
    api.get<{ auth_apps: AuthApp[] }>(path`/projects/${p}/auth-apps`),
    readMembers(api, p),
    api.get<{ connections: Connection[] }>(path`/projects/${p}/connections`),
    api.get<ProjectHealth>(path`/projects/${p}/health`),
    readPluginServices(api, p),
  ]);
  const writer = canWrite(project);
  const base = `/console/projects/${encodeURIComponent(project.slug)}`;
  const CreateForm = (props: { what: string; action: string; children: unknown }) =>
    writer ? (
      <form method="post" action={`${base}/${props.action}`} class="row create">
        <CsrfField csrf={csrf} />
        {props.children}
        <button type="submit" class="secondary">
          <Icon name="plus" />
          {`Create ${props.what}`}
        </button>
      </form>
    ) : null;
  const service = (segment: string, id: string) => consolePath.service(project.slug, segment, id);
  return c.html(
    <Layout title={project.name} crumbs={[{ href: base, label: project.name }]} csrf={csrf} flash={flash}>
      <div class="page-meta">
        <span class="hint">
          Slug <code>{project.slug}</code>
        </span>
        <Badge status={project.role ?? 'member'} title="Your role in this project" />
        <nav aria-label="Project" class="subnav">
          <a href={`${base}/activity`}>
            <Icon name="activity" />
            Activity
          </a>
        </nav>
      </div>
      <HealthCard
        slug={project.slug}
        databases={databases}
        authApps={auth_apps}
        connections={connections}
        health={health}
      />
      <ProjectMap
        slug={project.slug}
        sites={sites}
        columns={mapColumns(databases, buckets, auth_apps)}
        connections={connections}
        writer={writer}
      />
      <div class="cards cards-2">
        <ResourceCard
          id="sites"
          title="Sites"
          icon="site"
          count={sites.length}
          empty="No sites yet: a site is an app you deploy."
        >
          {sites.map((s) => (
            <li>
              <a href={consolePath.site(project.slug, s.id)}>{s.slug}</a>
            </li>
          ))}
          <CreateForm what="site" action="sites">
            <label>
              Slug
              <input type="text" name="slug" required pattern={SLUG_PATTERN} />
            </label>
          </CreateForm>
        </ResourceCard>
        <ResourceCard
          id="databases"
          title="Databases"
          icon="database"
          count={databases.length}
          empty="No databases yet."
        >
          {databases.map((d) => (
            <li>
              <a href={service('databases', d.id)}>{d.name}</a>
              <span class="item-meta">
                <span class="hint">{engineLabel(d.engine)}</span>
                <Badge status={d.status} />
              </span>
            </li>
          ))}
          <CreateForm what="database" action="databases">
            <label>
              Name
              <input type="text" name="name" required />
            </label>
            <label>
              Engine
              <select name="engine">
                {engines().map((e) => (
                  <option value={e.name}>{e.label}</option>
                ))}
              </select>
            </label>
          </CreateForm>
        </ResourceCard>
        <ResourceCard
          id="buckets"
          title="Buckets"
          icon="bucket"
          count={buckets.length}
          empty="No buckets yet."
        >
          {buckets.map((b) => (
            <li>
              <a href={service('buckets', b.id)}>{b.name}</a>
              <span class="item-meta hint">{b.region}</span>
            </li>
          ))}
          <CreateForm what="bucket" action="buckets">
            <label>
              Name
              <input type="text" name="name" required />
            </label>
            <label>
              Region
              <input type="text" name="region" placeholder="optional" />
            </label>
          </CreateForm>
        </ResourceCard>
        <ResourceCard
          id="auth-apps"
          title="Auth apps"
          icon="auth"
          count={auth_apps.length}
          empty="No auth apps yet."
        >
          {auth_apps.map((a) => (
            <li>
              <a href={service('auth-apps', a.id)}>{authAppLabel(a)}</a>
              <span class="item-meta">
                <Badge status={a.enabled ? 'enabled' : 'disabled'} />
              </span>
            </li>
          ))}
          <CreateForm what="auth app" action="auth-apps">
            <label>
              App ID
              <input type="text" name="app_id" required />
            </label>
            <label>
              Display name
              <input type="text" name="name" placeholder="optional" />
            </label>
          </CreateForm>
        </ResourceCard>
      </div>
      <PluginServiceCards slug={project.slug} lists={pluginLists} writer={writer} csrf={csrf} />
      <MembersSection
        slug={project.slug}
        csrf={csrf}
        admin={canAdmin(project)}
        viewer={viewerEmail()}
        {...people}
      />
    </Layout>,
  );
});

/** A kind of service as a card: its count, its items (each with its state) and its create form. */
function ResourceCard(p: {
  id: string;
  title: string;
  icon: IconName;
  count: number;
  empty: string;
  children: Child[];
}) {
  const [form, ...items] = [p.children[p.children.length - 1], ...p.children.slice(0, -1)];
  const list = items.flat();
  return (
    <SectionCard id={p.id} title={p.title} icon={p.icon} actions={<span class="count">{p.count}</span>}>
      {p.count === 0 ? <p class="hint">{p.empty}</p> : <ul class="items">{list}</ul>}
      {form}
    </SectionCard>
  );
}

/** What each create form sends to the API. */
const CREATES: Record<
  string,
  { body: (f: Record<string, string>) => Record<string, unknown>; what: string }
> = {
  sites: { what: 'site', body: (f) => ({ slug: f.slug ?? '' }) },
  databases: {
    what: 'database',
    body: (f) => ({ name: f.name ?? '', engine: f.engine ?? engines()[0]?.name }),
  },
  buckets: {
    what: 'bucket',
    body: (f) => ({ name: f.name ?? '', ...(f.region ? { region: f.region } : {}) }),
  },
  'auth-apps': {
    what: 'auth app',
    body: (f) => ({ app_id: f.app_id ?? '', ...(f.name ? { name: f.name } : {}) }),
  },
};

projectPages.post('/projects/:p/:collection{(?:sites|databases|buckets|auth-apps)}', async (c) => {
  const { api } = signedIn(c);
  const { p, collection } = c.req.param();
  const create = CREATES[collection];
  if (!create) return c.notFound();
  const form = await formOf(c);
  return act(
    c,
    consolePath.project(p),
    async () => {
      const body = create.body(form);
      await api.post(`${path`/projects/${p}`}/${collection}`, body);
      return `Created ${create.what} ${String(body.slug ?? body.name ?? body.app_id)}.`;
    },
    collection,
  );
});

projectPages.post('/projects/:p/sites/:s/delete', async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, s } = c.req.param();
  const form = await formOf(c);
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title="Delete site"
        question="Delete this site and all its connections?"
        action={consolePath.site(p, s, 'delete')}
        fields={{}}
        back={consolePath.site(p, s)}
        csrf={csrf}
      />,
    );
  }
  return act(c, consolePath.project(p), async () => {
    await api.delete(path`/projects/${p}/sites/${s}`);
    return 'Deleted the site.';
  });
});
