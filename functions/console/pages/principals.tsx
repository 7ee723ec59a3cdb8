/**
 * External principals of a database or bucket (contract §7): listed for every member, created,
 * rotated and revoked by admins. A new or rotated secret is shown on the answer page once and
 * never again.
 */
import { Hono } from 'hono';
import { levelsOf } from '../../domain/levels';
import { type CredentialKindName, credentialsOf } from '../../kinds/registry';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import { kindOfSegment, levelOf, type Principal, type Project } from '../api-shapes';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { CONNECTION_STRING_FIELDS, ConnectionString, ValueList } from '../copy';
import { When } from '../format';
import { ConfirmForm, ConfirmPage, CsrfField, Layout } from '../layout';
import { canAdmin } from '../role-offers';
import { DataTable } from '../table';

export const principalPages = new Hono<ConsoleEnv>();

/** The principals table and, for admins, the create form: a part of the Access section. */
export function PrincipalsSection(props: {
  project: Project;
  kind: CredentialKindName;
  segment: string;
  resourceId: string;
  principals: Principal[];
  csrf: string;
}) {
  const { project, kind, csrf } = props;
  const admin = canAdmin(project);
  const base = `${consolePath.service(project.slug, props.segment, props.resourceId)}/principals`;
  return (
    <section aria-labelledby="principals-heading">
      <h3 id="principals-heading">External principals</h3>
      <p class="hint">
        Named credentials for systems outside the project, each with its level, sources and expiry.
      </p>
      <DataTable
        rows={props.principals}
        empty="No external principals."
        columns={[
          { label: 'Name', cell: (pr) => pr.name },
          {
            label: credentialsOf(kind).credentialLabel,
            cell: (pr) => <code>{pr.username ?? pr.access_key_id ?? ''}</code>,
          },
          { label: 'Level', cell: (pr) => pr.level },
          {
            label: 'Allowed sources',
            cell: (pr) => (pr.allowed_sources.length ? pr.allowed_sources.join(', ') : 'any'),
          },
          {
            label: 'Expires',
            cell: (pr) =>
              pr.expires_at ? (
                <>
                  <When at={pr.expires_at} />
                  {pr.expired ? ' (expired)' : ''}
                </>
              ) : (
                'never'
              ),
          },
          {
            label: 'Change',
            when: admin,
            cell: (pr) => (
              <>
                <ConfirmForm
                  action={`${base}/${encodeURIComponent(pr.id)}/rotate`}
                  csrf={csrf}
                  label="Rotate"
                  question={`Give ${pr.name} a new secret? The current one stops working.`}
                  fields={{ name: pr.name }}
                  danger={false}
                />{' '}
                <ConfirmForm
                  action={`${base}/${encodeURIComponent(pr.id)}/revoke`}
                  csrf={csrf}
                  label="Revoke"
                  question={`Revoke ${pr.name}? Its credential stops working at once.`}
                  fields={{ name: pr.name }}
                />
              </>
            ),
          },
        ]}
      />
      {admin && (
        <form method="post" action={base} class="row">
          <CsrfField csrf={csrf} />
          <label>
            Name
            <input type="text" name="name" required />
          </label>
          <label>
            Allowed sources
            <input type="text" name="allowed_sources" placeholder="203.0.113.0/24, 2001:db8::/32" />
          </label>
          <label>
            Expires
            <input type="text" name="expires_at" placeholder="YYYY-MM-DD or ISO 8601" />
          </label>
          <label>
            Level
            <select name="level">
              {levelsOf(kind).map((l) => (
                <option value={l}>{l}</option>
              ))}
            </select>
          </label>
          <button type="submit">Create principal</button>
        </form>
      )}
    </section>
  );
}

/** `2026-12-31` or a local date-time as the form gives them, as ISO 8601 UTC; anything else as typed. */
export function expiryOf(text: string): string {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) return `${trimmed}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(trimmed)) return `${trimmed}:00Z`;
  return trimmed;
}

/**
 * The page that shows a secret, saying truthfully whether it can be seen again: `once` for a
 * value the API answers only here (a new principal's secret, an invitation link), else `again`
 * names where it is shown next time.
 */
export function SecretPage(props: {
  title: string;
  back: string;
  csrf: string;
  values: Record<string, unknown>;
  /** Where the same value can be shown again; absent: it is shown only this once. */
  again?: string;
}) {
  const hasUrls = CONNECTION_STRING_FIELDS.slice(1).some((k) => typeof props.values[k] === 'string');
  return (
    <Layout title={props.title} csrf={props.csrf}>
      <section class="card" aria-labelledby="secret-heading">
        <h2 id="secret-heading">
          {props.again ? 'You can show this again' : 'Copy it now: it is not shown again'}
        </h2>
        <p class="hint">
          {props.again ??
            'Tether keeps only what it needs to check it; once you leave this page, a new one means rotating.'}
        </p>
        <ConnectionString values={props.values} />
        <ValueList values={props.values} omit={hasUrls ? CONNECTION_STRING_FIELDS : []} />
        <p>
          <a href={props.back} class="button secondary">
            Done
          </a>
        </p>
      </section>
    </Layout>
  );
}

const ROOT = '/projects/:p/:seg{(?:databases|buckets)}/:id/principals';

principalPages.post(ROOT, async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, seg, id } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.service(p, seg, id);
  const sources = (form.allowed_sources ?? '').split(/[\s,]+/).filter(Boolean);
  let created: Record<string, unknown> | undefined;
  const refused = await act(
    c,
    back,
    async () => {
      created = await api.post<Record<string, unknown>>(
        `${path`/projects/${p}`}/${seg}/${path`${id}`}/principals`,
        {
          name: form.name ?? '',
          level: levelOf(kindOfSegment(seg) ?? 'database', form.level),
          ...(sources.length ? { allowed_sources: sources } : {}),
          ...(form.expires_at?.trim() ? { expires_at: expiryOf(form.expires_at) } : {}),
        },
      );
      return '';
    },
    'principal',
  );
  if (!created) return refused;
  return c.html(
    <SecretPage
      title={`Principal ${String(created.name)} created`}
      back={back}
      csrf={csrf}
      values={created}
    />,
  );
});

principalPages.post(`${ROOT}/:principalId/:action{(?:rotate|revoke)}`, async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, seg, id, principalId, action } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.service(p, seg, id);
  const name = form.name ?? 'this principal';
  const target = `${path`/projects/${p}`}/${seg}/${path`${id}/principals/${principalId}`}`;
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title={action === 'revoke' ? 'Revoke principal' : 'Rotate principal'}
        question={action === 'revoke' ? `Revoke ${name}?` : `Give ${name} a new secret?`}
        action={`${back}/principals/${encodeURIComponent(principalId)}/${action}`}
        fields={{ name }}
        back={back}
        csrf={csrf}
      />,
    );
  }
  if (action === 'revoke') {
    return act(c, back, async () => {
      const { revoked } = await api.delete<{ revoked: boolean }>(target);
      return revoked ? `Revoked ${name}.` : `${name} was already revoked.`;
    });
  }
  let rotated: Record<string, unknown> | undefined;
  const refused = await act(c, back, async () => {
    rotated = await api.post<Record<string, unknown>>(`${target}/rotate`);
    return '';
  });
  if (!rotated) return refused;
  return c.html(<SecretPage title={`New secret for ${name}`} back={back} csrf={csrf} values={rotated} />);
});
