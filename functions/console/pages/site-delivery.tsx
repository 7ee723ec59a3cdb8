/**
 * A site's Delivery tab (contract §11): where its live patches go (the target form, admin only),
 * and its latest deliveries with status, attempts and last error, names never values; `Retry` on
 * a dead or failed one. The form sends the fields filled in as the API's body, so the API's
 * schema of each target type is the one rule.
 */
import { Hono } from 'hono';
import { act, consolePath, formOf } from '../actions';
import { path } from '../api';
import { type ConsoleEnv, signedIn } from '../context';
import { PostButton } from '../controls';
import { When } from '../format';
import { CsrfField } from '../layout';
import { canAdmin, canWrite } from '../roles';
import { DataTable } from '../table';
import { loadSite, SitePage } from './site-shell';

interface Delivery {
  id: string;
  seq: number | null;
  reason: string;
  names: string[];
  status: 'pending' | 'delivered' | 'failed' | 'dead';
  attempts: number;
  last_error: string | null;
  created_at: string;
}

/** The target form's text fields: the API field each fills, and its label. */
const FIELDS = [
  ['url', 'Webhook URL'],
  ['account_id', 'Account ID'],
  ['script_name', 'Script name'],
  ['project_id', 'Project ID'],
  ['team_id', 'Team ID'],
  ['app_name', 'App name'],
] as const;
const ENVIRONMENTS = ['production', 'preview', 'development'] as const;

export const siteDeliveryPages = new Hono<ConsoleEnv>();

siteDeliveryPages.get('/projects/:p/sites/:s/delivery', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { p, s } = c.req.param();
  const [{ project, site }, target, listed] = await Promise.all([
    loadSite(api, p, s),
    api.get<Record<string, unknown> & { type: string }>(path`/projects/${p}/sites/${s}/target`),
    api.get<{ target: { type: string; configured: boolean }; deliveries: Delivery[] }>(
      path`/projects/${p}/sites/${s}/deliveries`,
    ),
  ]);
  const action = (what: string) => consolePath.site(project.slug, site.id, what);
  const shown = Object.entries(target).filter(([k]) => k !== 'type');
  return c.html(
    <SitePage project={project} site={site} tab="delivery" csrf={csrf} flash={flash}>
      <section class="card wrap-any" aria-labelledby="target-heading">
        <h2 id="target-heading">Delivery target</h2>
        {target.type === 'default' ? (
          <p>
            {listed.target.configured
              ? "Live patches go to the platform's runtime receiver."
              : 'No target: live patches wait as pending deliveries, and no running app is told. Set a target below, or use tether env pull or tether run.'}
          </p>
        ) : (
          <p>
            Live patches go to <strong>{target.type}</strong>
            {shown.length > 0 &&
              ` (${shown.map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`).join('; ')})`}
            .
          </p>
        )}
        {canAdmin(project) && (
          <form method="post" action={action('delivery/target')} class="stack">
            <CsrfField csrf={csrf} />
            <label>
              Type
              <select name="type">
                {['webhook', 'cloudflare', 'vercel', 'fly'].map((t) => (
                  <option value={t} selected={t === target.type}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
            {FIELDS.map(([name, label]) => (
              <label>
                {label}
                <input type="text" name={name} autocomplete="off" />
              </label>
            ))}
            <label>
              API token
              <input type="password" name="api_token" autocomplete="off" />
            </label>
            <label>
              Webhook secret
              <input type="password" name="secret" autocomplete="off" />
            </label>
            <fieldset>
              <legend>Environments (Vercel)</legend>
              {ENVIRONMENTS.map((e) => (
                <label>
                  <input type="checkbox" name={`env_${e}`} value="yes" /> {e}
                </label>
              ))}
            </fieldset>
            <button type="submit">Set target</button>
          </form>
        )}
        {canAdmin(project) && target.type !== 'default' && (
          <PostButton action={action('delivery/target/remove')} csrf={csrf} label="Remove target" secondary />
        )}
      </section>
      <section class="card wrap-any" aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        <DataTable
          rows={listed.deliveries}
          empty="No live patches yet."
          columns={[
            { label: 'When', cell: (d) => <When at={d.created_at} /> },
            { label: 'Reason', cell: (d) => d.reason },
            { label: 'Seq', cell: (d) => d.seq ?? '' },
            { label: 'Status', cell: (d) => d.status },
            { label: 'Attempts', cell: (d) => d.attempts },
            { label: 'Names', class: 'names', cell: (d) => d.names.join(' ') },
            { label: 'Last error', cell: (d) => d.last_error ?? '' },
            {
              label: 'Retry',
              when: canWrite(project),
              cell: (d) =>
                (d.status === 'dead' || d.status === 'failed') && (
                  <PostButton action={action(`delivery/${d.id}/retry`)} csrf={csrf} label="Retry" />
                ),
            },
          ]}
        />
      </section>
    </SitePage>,
  );
});

siteDeliveryPages.post('/projects/:p/sites/:s/delivery/target', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  const form = await formOf(c);
  return act(c, consolePath.site(p, s, 'delivery'), async () => {
    const body: Record<string, unknown> = { type: form.type ?? '' };
    for (const [name] of FIELDS) if (form[name]) body[name] = form[name];
    if (form.api_token) body.api_token = form.api_token;
    if (form.secret) body.secret = form.secret;
    const environments = ENVIRONMENTS.filter((e) => form[`env_${e}`] === 'yes');
    if (environments.length > 0) body.environments = environments;
    const set = await api.put<{ type: string }>(path`/projects/${p}/sites/${s}/target`, body);
    return `Live patches now go to ${set.type}; it receives the whole effective set once.`;
  });
});

siteDeliveryPages.post('/projects/:p/sites/:s/delivery/target/remove', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  return act(c, consolePath.site(p, s, 'delivery'), async () => {
    await api.delete(path`/projects/${p}/sites/${s}/target`);
    return 'The target is removed.';
  });
});

siteDeliveryPages.post('/projects/:p/sites/:s/delivery/:d/retry', async (c) => {
  const { api } = signedIn(c);
  const { p, s, d } = c.req.param();
  return act(c, consolePath.site(p, s, 'delivery'), async () => {
    await api.post(path`/projects/${p}/sites/${s}/deliveries/${d}/retry`);
    return 'The delivery is sent again.';
  });
});
