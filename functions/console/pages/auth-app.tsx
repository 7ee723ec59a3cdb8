/** An auth app's page: its Access section, the project keys restricted to it, its Settings, its Users and its Signing keys. */

import { Hono } from 'hono';
import { act, consolePath, formOf } from '../actions';
import type { AccessListing, AuthApp, AuthUser, Project, SigningKeys } from '../api-shapes';
import { Badge, Truncate } from '../components';
import { ApiFailure, type ConsoleApi, path } from '../console-api';
import { type ConsoleContext, type ConsoleEnv, signedIn } from '../console-env';
import type { Flash } from '../flash';
import { authAppLabel } from '../format';
import { Layout } from '../layout';
import { canAdmin, canWrite } from '../role-offers';
import { AccessSection } from './access';
import { ManageSection } from './auth-app-manage';
import { SettingsSection } from './auth-settings';
import { patchOf, type SettingsDraft, secretFieldNames } from './auth-settings-form';
import { SigningKeysSection } from './auth-signing-keys';
import { UsersSection } from './auth-users';

export const authAppPages = new Hono<ConsoleEnv>();

async function loadApp(api: ConsoleApi, p: string, id: string) {
  const [project, { auth_apps }, listing, users, signingKeys] = await Promise.all([
    api.get<Project>(path`/projects/${p}`),
    api.get<{ auth_apps: AuthApp[] }>(path`/projects/${p}/auth-apps`),
    api.get<AccessListing>(path`/projects/${p}/auth-apps/${id}/access`),
    api.getIfAllowed<{ users: AuthUser[] }>(path`/projects/${p}/auth-apps/${id}/users`),
    api.getIfAllowed<SigningKeys>(path`/projects/${p}/auth-apps/${id}/signing-keys`),
  ]);
  const app = auth_apps.find((a) => a.id === id.toLowerCase());
  if (!app) throw new ApiFailure(404, 'NOT_FOUND', 'auth app not found');
  return { project, app, listing, users: users?.users, signingKeys };
}

async function renderPage(
  c: ConsoleContext,
  settings?: { draft: SettingsDraft; error: { message: string; field?: string } },
  flash?: Flash,
) {
  const { api, csrf } = signedIn(c);
  const { p = '', id = '' } = c.req.param();
  const { project, app, listing, users, signingKeys } = await loadApp(api, p, id);
  const base = consolePath.service(project.slug, 'auth-apps', app.id);
  const writer = canWrite(project);
  const keys = listing.api_keys ?? [];
  return c.html(
    <Layout
      title={`Auth app ${authAppLabel(app)}`}
      crumbs={[
        { href: consolePath.project(project.slug), label: project.name },
        { href: base, label: authAppLabel(app) },
      ]}
      csrf={csrf}
      flash={flash}
    >
      <div class="page-meta">
        <Badge status={app.enabled ? 'enabled' : 'disabled'} />
        <span class="copy-value hint">
          Auth URL <Truncate mono text={app.auth_url} />
        </span>
        <span class="copy-value hint">
          Issuer <Truncate mono text={app.issuer} />
        </span>
      </div>
      <AccessSection
        project={project}
        kind="auth_app"
        resourceId={app.id}
        name={app.app_id}
        listing={listing}
        csrf={csrf}
      >
        <section aria-labelledby="keys-heading">
          <h3 id="keys-heading">Project keys restricted to this app</h3>
          {keys.length === 0 ? (
            <p>No project key may administer this app's users.</p>
          ) : (
            <ul>
              {keys.map((k) => (
                <li>
                  {k.name} {k.managed ? <span class="hint">(managed key of a site)</span> : null}
                </li>
              ))}
            </ul>
          )}
        </section>
      </AccessSection>
      <SettingsSection
        app={app}
        action={`${base}/settings`}
        csrf={csrf}
        writer={writer}
        draft={settings?.draft}
        error={settings?.error}
      />
      <UsersSection users={users} base={base} csrf={csrf} writer={writer} />
      {signingKeys && <SigningKeysSection keys={signingKeys} canRotate={canAdmin(project)} />}
      {canAdmin(project) && <ManageSection base={base} name={app.app_id} csrf={csrf} />}
    </Layout>,
    settings ? 400 : 200,
  );
}

authAppPages.get('/projects/:p/auth-apps/:id', (c) => renderPage(c, undefined, signedIn(c).flash));

authAppPages.post('/projects/:p/auth-apps/:id/settings', async (c) => {
  const { api } = signedIn(c);
  const { p, id } = c.req.param();
  const draft = await formOf(c);
  const { auth_apps } = await api.get<{ auth_apps: AuthApp[] }>(path`/projects/${p}/auth-apps`);
  const app = auth_apps.find((a) => a.id === id.toLowerCase());
  if (!app) throw new ApiFailure(404, 'NOT_FOUND', 'auth app not found');
  try {
    await api.patch(path`/projects/${p}/auth-apps/${id}`, patchOf(app, draft));
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 400) throw err;
    // Shown again as typed, with the refusal beside the field (secrets are never sent back).
    const kept = Object.fromEntries(
      Object.entries(draft).filter(([name]) => !secretFieldNames().includes(name)),
    );
    return renderPage(c, { draft: kept, error: { message: err.message, field: err.field } });
  }
  return act(c, consolePath.service(p, 'auth-apps', id), async () => 'Settings saved.');
});
