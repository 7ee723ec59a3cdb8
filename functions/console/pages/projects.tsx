/** The projects the signed-in account belongs to, and a form to create one. */
import { Hono } from 'hono';
import { act, consolePath, formOf } from '../actions';
import type { Project } from '../api-shapes';
import { type ConsoleEnv, signedIn } from '../console-env';
import { SLUG_PATTERN, When } from '../format';
import { Card, CsrfField, Layout } from '../layout';
import { DataTable } from '../table';

export const projectsPages = new Hono<ConsoleEnv>();

projectsPages.get('/', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { projects } = await api.get<{ projects: Project[] }>('/projects');
  return c.html(
    <Layout title="Projects" csrf={csrf} flash={flash}>
      <Card id="projects" title="Your projects">
        <DataTable
          rows={projects}
          empty="No projects yet. Create one below."
          columns={[
            { label: 'Project', cell: (p) => <a href={consolePath.project(p.slug)}>{p.name}</a> },
            { label: 'Slug', cell: (p) => <code>{p.slug}</code> },
            { label: 'Your role', cell: (p) => p.role ?? '' },
            { label: 'Created', cell: (p) => <When at={p.created_at} /> },
          ]}
        />
      </Card>
      <Card id="create-project" title="Create a project">
        <form method="post" action="/console/projects" class="row">
          <CsrfField csrf={csrf} />
          <label>
            Name
            <input type="text" name="name" required maxlength={100} />
          </label>
          <label>
            Slug
            <input type="text" name="slug" pattern={SLUG_PATTERN} placeholder="optional" />
          </label>
          <button type="submit">Create project</button>
        </form>
      </Card>
    </Layout>,
  );
});

projectsPages.post('/projects', async (c) => {
  const { api } = signedIn(c);
  const form = await formOf(c);
  let created: Project | undefined;
  const answer = await act(c, '/console', async () => {
    created = await api.post<Project>('/projects', {
      name: form.name ?? '',
      ...(form.slug ? { slug: form.slug } : {}),
    });
    return `Created project ${created.name}.`;
  });
  return created ? c.redirect(consolePath.project(created.slug), 303) : answer;
});
