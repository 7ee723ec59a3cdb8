/** An auth app's SERVICE_AUTH_SERVER_KEY as a connected site receives it. */
import { uniqueName } from './api';
import type { TestAuthApp } from './oauth';

/** Creates a site in the app's project, connects the app to it and returns the key the site is handed. */
export async function serverKeyOf(app: TestAuthApp): Promise<string> {
  const projectPath = `/api/v1/projects/${app.project.id}`;
  const site = await app.admin.post<{ id: string }>(`${projectPath}/sites`, { slug: uniqueName('site') });
  if (site.status !== 201) throw new Error(`create site: ${site.status} ${site.text}`);
  const sitePath = `${projectPath}/sites/${site.body.id}`;
  const connected = await app.admin.post(`${sitePath}/connections`, {
    kind: 'auth_app',
    resource_id: app.id,
  });
  if (connected.status !== 201) throw new Error(`connect: ${connected.status} ${connected.text}`);
  const vars = await app.admin.get<{ vars: Record<string, string> }>(`${sitePath}/env/effective`);
  const key = vars.body.vars.SERVICE_AUTH_SERVER_KEY;
  if (!key) throw new Error(`no server key among ${Object.keys(vars.body.vars ?? {}).join(', ')}`);
  return key;
}
