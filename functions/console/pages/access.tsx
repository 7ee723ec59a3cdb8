/**
 * The Access section of a database, bucket or auth-app page: every site of the project with its
 * level or `not connected`, connected, changed or disconnected from here through the same
 * connection routes a site's Connections tab uses.
 */
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { DEFAULT_LEVEL, levelsOf } from '../../domain/levels';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import {
  type AccessListing,
  type Connection,
  connectRequest,
  type Kind,
  kindOfSegment,
  kindSegment,
  type Project,
} from '../api-shapes';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { LevelForm } from '../controls';
import { levelChangeConsequence } from '../format';
import { Card, ConfirmForm, ConfirmPage, CsrfField } from '../layout';
import { canWrite } from '../role-offers';
import { DataTable } from '../table';

export const accessPages = new Hono<ConsoleEnv>();

/**
 * The Access section: every site of the project with its level, then `children`, the rest of who
 * reaches the service (its external principals, or the project keys restricted to an auth app).
 */
export function AccessSection(props: {
  project: Project;
  kind: Kind;
  resourceId: string;
  name: string;
  listing: AccessListing;
  csrf: string;
  children?: Child;
}) {
  const { project, kind, resourceId, csrf } = props;
  const writer = canWrite(project);
  const action = (what: string) =>
    `${consolePath.service(project.slug, kindSegment(kind), resourceId)}/access/${what}`;
  return (
    <Card id="access" title="Access">
      <DataTable
        rows={props.listing.sites}
        empty="The project has no sites yet."
        columns={[
          {
            label: 'Site',
            cell: (s) => <a href={consolePath.site(project.slug, s.site_id)}>{s.site_slug}</a>,
          },
          { label: 'Level', cell: (s) => s.level ?? 'not connected' },
          {
            label: 'Change',
            when: writer,
            cell: (s) =>
              s.level ? (
                <>
                  <LevelForm
                    action={action('level')}
                    csrf={csrf}
                    kind={kind}
                    resourceId={resourceId}
                    level={s.level}
                    name={`${s.site_slug}'s connection`}
                    extra={{ site_id: s.site_id }}
                  />{' '}
                  <ConfirmForm
                    action={action('disconnect')}
                    csrf={csrf}
                    label="Disconnect"
                    question={`Disconnect ${s.site_slug} from ${props.name}?`}
                    fields={{ site_id: s.site_id, kind, resource_id: resourceId, name: s.site_slug }}
                  />
                </>
              ) : (
                <form
                  method="post"
                  action={action('connect')}
                  class="inline"
                  data-confirm-admin={`Connect ${s.site_slug} at admin? Its managed key may then administer the app's end users.`}
                >
                  <CsrfField csrf={csrf} />
                  <input type="hidden" name="site_id" value={s.site_id} />
                  <input type="hidden" name="kind" value={kind} />
                  <input type="hidden" name="resource_id" value={resourceId} />
                  <select name="level" aria-label="Level">
                    {levelsOf(kind).map((l) => (
                      <option value={l} selected={l === DEFAULT_LEVEL[kind]}>
                        {l}
                      </option>
                    ))}
                  </select>
                  <button type="submit">Connect</button>
                </form>
              ),
          },
        ]}
      />
      {props.children}
    </Card>
  );
}

const ROOT = '/projects/:p/:seg{(?:databases|buckets|auth-apps)}/:id/access';

accessPages.post(`${ROOT}/:action{(?:connect|level|disconnect)}`, async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, seg, id, action } = c.req.param();
  const kind = kindOfSegment(seg) ?? 'database';
  const form = await formOf(c);
  const back = consolePath.service(p, seg, id);
  const siteId = form.site_id ?? '';
  const consequence = action === 'level' ? levelChangeConsequence(kind) : undefined;
  const toAdmin = action !== 'disconnect' && form.level === 'admin';
  const needsConfirm = action === 'disconnect' || toAdmin || consequence !== undefined;
  if (needsConfirm && unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title={action === 'disconnect' ? 'Disconnect' : toAdmin ? 'Raise to admin' : 'Change level'}
        question={
          action === 'disconnect'
            ? `Disconnect ${form.name ?? 'this site'}?`
            : toAdmin
              ? "Give this site's connection admin? Its managed key may then administer the app's end users."
              : `Change this site's connection to ${form.level ?? ''}? ${consequence ?? ''}`
        }
        action={`${back}/access/${action}`}
        fields={{ site_id: siteId, level: form.level ?? '', name: form.name ?? '' }}
        back={back}
        csrf={csrf}
      />,
    );
  }
  return act(c, back, async () => {
    if (action === 'disconnect') {
      const { removed } = await api.delete<{ removed: boolean }>(
        path`/projects/${p}/sites/${siteId}/connections/${kind}/${id}`,
      );
      return removed ? 'Disconnected.' : 'That site was not connected.';
    }
    const conn = await api.post<Connection>(
      path`/projects/${p}/sites/${siteId}/connections`,
      connectRequest(kind, id, form.level),
    );
    return `${conn.site_slug} is connected at ${conn.level}.`;
  });
});
