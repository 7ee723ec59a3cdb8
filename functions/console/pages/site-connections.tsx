/** A site's Connections tab: its connections (change level, disconnect, rotate) and what it could connect. */
import { Hono } from 'hono';
import { isKind, levelsOf } from '../../domain/levels';
import { isPlainName } from '../../domain/variables';
import { hasCredential, isPluginKind } from '../../kinds/registry';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import { type Available, type Connection, connectRequest, type Kind, kindSegment } from '../api-shapes';
import { Names } from '../components';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { LevelForm } from '../controls';
import { kindWord, levelChangeConsequence, levelMeaning, When } from '../format';
import { Card, ConfirmForm, ConfirmPage, CsrfField } from '../layout';
import { canWrite } from '../role-offers';
import { DataTable } from '../table';
import { loadSite, SitePage } from './site-shell';

export const siteConnectionsPages = new Hono<ConsoleEnv>();

const ROOT = '/projects/:p/sites/:s';

siteConnectionsPages.get(ROOT, (c) => c.redirect(consolePath.site(c.req.param('p'), c.req.param('s')), 302));

siteConnectionsPages.get(`${ROOT}/connections`, async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { p, s } = c.req.param();
  const [{ project, site }, listing] = await Promise.all([
    loadSite(api, p, s),
    api.get<{ connections: Connection[]; available: Available[] }>(
      path`/projects/${p}/sites/${s}/connections`,
    ),
  ]);
  const writer = canWrite(project);
  const action = (what: string) => consolePath.site(project.slug, site.id, `connections/${what}`);
  const kinds = [...new Set(listing.available.map((a) => a.kind))];
  // The project map's Connect cell names the service to choose.
  const chosen = c.req.query('service');
  return c.html(
    <SitePage project={project} site={site} tab="connections" csrf={csrf} flash={flash}>
      <Card id="connections" title="Connections">
        <DataTable
          rows={listing.connections}
          empty="This site is connected to nothing yet."
          columns={[
            {
              label: 'Service',
              cell: (conn) => (
                <a
                  href={
                    isPluginKind(conn.kind)
                      ? consolePath.pluginService(project.slug, kindSegment(conn.kind), conn.resource_id)
                      : consolePath.service(project.slug, kindSegment(conn.kind), conn.resource_id)
                  }
                  class="cell-truncate"
                  title={conn.resource_name}
                >
                  {conn.resource_name}
                </a>
              ),
            },
            { label: 'Kind', class: 'nowrap', cell: (conn) => kindWord(conn.kind) },
            {
              label: 'Level',
              cell: (conn) => (
                <div class="cell-stack">
                  {writer ? (
                    <LevelForm
                      action={action('level')}
                      csrf={csrf}
                      kind={conn.kind}
                      resourceId={conn.resource_id}
                      level={conn.level}
                      name={conn.resource_name}
                    />
                  ) : (
                    <span>{conn.level}</span>
                  )}
                  <span class="hint">{levelMeaning(conn.kind, conn.level)}</span>
                </div>
              ),
            },
            { label: 'Variables', class: 'names', cell: (conn) => <Names names={conn.env_names} /> },
            { label: 'Connected', class: 'nowrap', cell: (conn) => <When at={conn.created_at} /> },
            {
              label: 'Actions',
              when: writer,
              cell: (conn) => (
                <div class="actions">
                  {hasCredential(conn.kind) && (
                    <ConfirmForm
                      action={action('rotate')}
                      csrf={csrf}
                      label="Rotate credential"
                      question={`Give ${site.slug}'s credential for ${conn.resource_name} a new secret?`}
                      fields={{
                        kind: conn.kind,
                        resource_id: conn.resource_id,
                        name: conn.resource_name,
                      }}
                      danger={false}
                    />
                  )}
                  {!conn.env_names.some(isPlainName) && (
                    <ConfirmForm
                      action={action('promote')}
                      csrf={csrf}
                      label="Promote"
                      question={`Give the plain names to ${conn.resource_name}? The app's unsuffixed variables (such as DATABASE_URL) then point at it.`}
                      fields={{
                        kind: conn.kind,
                        resource_id: conn.resource_id,
                        name: conn.resource_name,
                      }}
                      danger={false}
                    />
                  )}
                  <ConfirmForm
                    action={action('disconnect')}
                    csrf={csrf}
                    label="Disconnect"
                    question={`Disconnect ${conn.resource_name} from ${site.slug}?`}
                    fields={{
                      kind: conn.kind,
                      resource_id: conn.resource_id,
                      name: conn.resource_name,
                    }}
                  />
                </div>
              ),
            },
          ]}
        />
      </Card>
      <Card id="available" title="Available services">
        <DataTable
          rows={listing.available}
          empty="Every service of the project is connected (or there are none)."
          columns={[
            { label: 'Service', cell: (a) => a.resource_name },
            { label: 'Kind', cell: (a) => kindWord(a.kind) },
            { label: 'Levels', cell: (a) => a.levels.join(', ') },
            { label: 'Connecting adds', class: 'names', cell: (a) => <Names names={a.env_names} /> },
          ]}
        />
        {writer && listing.available.length > 0 && (
          <form
            method="post"
            action={action('connect')}
            id="connect"
            class="row"
            data-confirm-admin="Connect at admin? The site's managed key may then administer the app's end users."
          >
            <CsrfField csrf={csrf} />
            <label>
              Service
              <select name="service" required data-narrows="connect-level">
                {kinds.map((kind) => (
                  <optgroup label={kindWord(kind)}>
                    {listing.available
                      .filter((a) => a.kind === kind)
                      .map((a) => (
                        <option
                          value={`${a.kind}:${a.resource_id}`}
                          data-kind={a.kind}
                          selected={chosen === `${a.kind}:${a.resource_id}`}
                        >
                          {a.resource_name}
                        </option>
                      ))}
                  </optgroup>
                ))}
              </select>
            </label>
            <label>
              Level
              <select name="level" id="connect-level">
                <option value="">default</option>
                {kinds.flatMap((kind) =>
                  levelsOf(kind).map((l) => (
                    <option value={l} data-kind={kind}>
                      {l}
                    </option>
                  )),
                )}
              </select>
            </label>
            <button type="submit">Connect</button>
          </form>
        )}
      </Card>
    </SitePage>,
  );
});

/** `kind:resource_id` of the Service combobox. */
function serviceOf(value: string | undefined): { kind: string; resource_id: string } {
  const [kind = '', resourceId = ''] = (value ?? '').split(':');
  return { kind, resource_id: resourceId };
}

/** The confirmation a connect or level change needs first, if any (nothing changes before `Confirm`). */
function confirmationOf(form: Record<string, string>, changing: boolean): string | undefined {
  if (!unconfirmed(form)) return undefined;
  if (form.level === 'admin')
    return `Give ${form.name || 'this connection'} admin? The site's managed key may then administer the app's end users.`;
  const consequence =
    changing && isKind(form.kind ?? '') ? levelChangeConsequence(form.kind as Kind) : undefined;
  return consequence
    ? `Change ${form.name || 'this connection'} to ${form.level}? ${consequence}`
    : undefined;
}

siteConnectionsPages.post(`${ROOT}/connections/:action{(?:connect|level)}`, async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, s, action } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.site(p, s);
  const target =
    action === 'connect'
      ? serviceOf(form.service)
      : { kind: form.kind ?? '', resource_id: form.resource_id ?? '' };
  const question = confirmationOf({ ...form, ...target }, action === 'level');
  if (question) {
    return c.html(
      <ConfirmPage
        title={action === 'connect' ? 'Connect' : 'Change level'}
        question={question}
        action={consolePath.site(p, s, `connections/${action}`)}
        fields={{ ...form }}
        back={back}
        csrf={csrf}
      />,
    );
  }
  return act(c, back, async () => {
    const conn = await api.post<Connection>(
      path`/projects/${p}/sites/${s}/connections`,
      connectRequest(target.kind, target.resource_id, form.level),
    );
    return action === 'connect'
      ? `Connected ${conn.resource_name} at ${conn.level}.`
      : `${conn.resource_name} is now at ${conn.level}.`;
  });
});

siteConnectionsPages.post(`${ROOT}/connections/:action{(?:disconnect|rotate|promote)}`, async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, s, action } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.site(p, s);
  const name = form.name ?? 'this service';
  const words = {
    disconnect: { title: 'Disconnect', question: `Disconnect ${name}?` },
    rotate: { title: 'Rotate credential', question: `Give this site's credential for ${name} a new secret?` },
    promote: { title: 'Promote', question: `Give the plain names to ${name}?` },
  }[action as 'disconnect' | 'rotate' | 'promote'];
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title={words.title}
        question={words.question}
        action={consolePath.site(p, s, `connections/${action}`)}
        fields={{ kind: form.kind ?? '', resource_id: form.resource_id ?? '', name }}
        back={back}
        csrf={csrf}
      />,
    );
  }
  const one = path`/projects/${p}/sites/${s}/connections/${form.kind ?? ''}/${form.resource_id ?? ''}`;
  return act(c, back, async () => {
    if (action === 'rotate') {
      await api.post(`${one}/rotate`);
      return `The credential for ${name} has a new secret; the Delivery tab shows where it went.`;
    }
    if (action === 'promote') {
      await api.post(`${one}/promote`);
      return `${name} now holds the plain names.`;
    }
    const { removed } = await api.delete<{ removed: boolean }>(one);
    return removed ? `Disconnected ${name}.` : `${name} was not connected.`;
  });
});
