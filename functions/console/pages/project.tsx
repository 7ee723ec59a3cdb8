/** A project: its sites, databases, buckets and auth apps, each with a create form for writers. */
import { Hono } from 'hono';
import { engines } from '../../kinds/registry';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import { path } from '../api';
import { type ConsoleEnv, signedIn } from '../context';
import { authAppLabel, engineLabel } from '../format';
import { Card, ConfirmPage, CsrfField, Layout } from '../layout';
import { canAdmin, canWrite } from '../roles';
import type { AuthApp, Bucket, Connection, Database, Project, Site } from '../types';
import { MembersSection, readMembers } from './members';
import { mapColumns, ProjectMap } from './project-map';

export const projectPages = new Hono<ConsoleEnv>();

projectPages.get('/projects/:p', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const p = c.req.param('p');
  const [project, { sites }, { databases }, { buckets }, { auth_apps }, people, { connections }] =
    await Promise.all([
      api.get<Project>(path`/projects/${p}`),
      api.get<{ sites: Site[] }>(path`/projects/${p}/sites`),
      api.get<{ databases: Database[] }>(path`/projects/${p}/databases`),
      api.get<{ buckets: Bucket[] }>(path`/projects/${p}/buckets`),
      api.get<{ auth_apps: AuthApp[] }>(path`/projects/${p}/auth-apps`),
      readMembers(api, p),
      api.get<{ connections: Connection[] }>(path`/projects/${p}/connections`),
    ]);
  const writer = canWrite(project);
  const base = `/console/projects/${encodeURIComponent(project.slug)}`;
  const CreateForm = (props: { what: string; action: string; children: unknown }) =>
    writer ? (
      <form method="post" action={`${base}/${props.action}`} class="row">
        <CsrfField csrf={csrf} />
        {props.children}
        <button type="submit">{`Create ${props.what}`}</button>
      </form>
    ) : null;
  return c.html(
    <Layout title={project.name} crumbs={[{ href: base, label: project.name }]} csrf={csrf} flash={flash}>
      <p class="hint">
        Slug <code>{project.slug}</code> · your role: {project.role}
      </p>
      <nav aria-label="Project" class="subnav">
        <a href={`${base}/activity`}>Activity</a>
      </nav>
      <ProjectMap
        slug={project.slug}
        sites={sites}
        columns={mapColumns(databases, buckets, auth_apps)}
        connections={connections}
      />
      <Card id="sites" title="Sites">
        {sites.length === 0 ? <p>No sites yet.</p> : null}
        <ul>
          {sites.map((s) => (
            <li>
              <a href={consolePath.site(project.slug, s.id)}>{s.slug}</a>
            </li>
          ))}
        </ul>
        <CreateForm what="site" action="sites">
          <label>
            Slug
            <input type="text" name="slug" required pattern="[a-z0-9][a-z0-9-]{0,62}" />
          </label>
        </CreateForm>
      </Card>
      <Card id="databases" title="Databases">
        {databases.length === 0 ? <p>No databases yet.</p> : null}
        <ul>
          {databases.map((d) => (
            <li>
              <a href={consolePath.service(project.slug, 'databases', d.id)}>{d.name}</a>{' '}
              <span class="hint">
                {engineLabel(d.engine)} · {d.status}
              </span>
            </li>
          ))}
        </ul>
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
      </Card>
      <Card id="buckets" title="Buckets">
        {buckets.length === 0 ? <p>No buckets yet.</p> : null}
        <ul>
          {buckets.map((b) => (
            <li>
              <a href={consolePath.service(project.slug, 'buckets', b.id)}>{b.name}</a>{' '}
              <span class="hint">{b.region}</span>
            </li>
          ))}
        </ul>
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
      </Card>
      <Card id="auth-apps" title="Auth apps">
        {auth_apps.length === 0 ? <p>No auth apps yet.</p> : null}
        <ul>
          {auth_apps.map((a) => (
            <li>
              <a href={consolePath.service(project.slug, 'auth-apps', a.id)}>{authAppLabel(a)}</a>{' '}
              <span class="hint">{a.enabled ? 'enabled' : 'disabled'}</span>
            </li>
          ))}
        </ul>
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
      </Card>
      <MembersSection slug={project.slug} csrf={csrf} admin={canAdmin(project)} {...people} />
    </Layout>,
  );
});

/** What each create form sends to the API. */
const CREATES: Record<
  string,
  { body: (f: Record<string, string>) => Record<string, unknown>; what: string }
> = {
  sites: { what: 'site', body: (f) => ({ slug: f.slug ?? '' }) },
  databases: { what: 'database', body: (f) => ({ name: f.name ?? '', engine: f.engine ?? 'postgresql' }) },
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
