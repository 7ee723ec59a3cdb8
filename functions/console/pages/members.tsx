/**
 * A project's Members section: members with their roles and pending invitations, each with
 * `Remove` or `Revoke` for admins, and the invite form (`Email`, `Role`, `Invite`). The link of
 * a new invitation is shown once, on the answer page, as every secret is.
 */
import { Hono } from 'hono';
import { ROLES } from '../../domain/roles';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import { Badge, SectionCard, Truncate } from '../components';
import { type ConsoleApi, path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { When } from '../format';
import { ConfirmForm, ConfirmPage, CsrfField } from '../layout';
import { DataTable } from '../table';
import { SecretPage } from './principals';

/** A member as the API lists it. */
export interface Member {
  account_id: string;
  email: string;
  name: string | null;
  role: string;
  created_at: string;
}

/** A pending invitation as the API lists it. */
export interface Invitation {
  id: string;
  email: string;
  role: string;
  expires_at: string;
}

/** The members and pending invitations of project `p`, read side by side. */
export async function readMembers(
  api: ConsoleApi,
  p: string,
): Promise<{ members: Member[]; invitations: Invitation[] }> {
  const [{ members }, { invitations }] = await Promise.all([
    api.get<{ members: Member[] }>(path`/projects/${p}/members`),
    api.get<{ invitations: Invitation[] }>(path`/projects/${p}/invitations`),
  ]);
  return { members, invitations };
}

/** A row of the Members table: a member or a pending invitation. */
type Row = { email: string; role: string; member?: Member; invitation?: Invitation };

/** The Members section of the project page. */
export function MembersSection(props: {
  slug: string;
  csrf: string;
  admin: boolean;
  /** The signed-in person's e-mail (their own row says "you"). */
  viewer?: string | null;
  members: Member[];
  invitations: Invitation[];
}) {
  const base = `${consolePath.project(props.slug)}`;
  // The only owner cannot be removed (the API refuses it), so their row offers no Remove.
  const owners = props.members.filter((m) => m.role === 'owner');
  const removable = (m: Member) => !(m.role === 'owner' && owners.length === 1);
  return (
    <SectionCard id="members" title="Members" icon="members">
      <DataTable
        rows={[
          ...props.members.map((m): Row => ({ member: m, email: m.email, role: m.role })),
          ...props.invitations.map((i): Row => ({ invitation: i, email: i.email, role: i.role })),
        ]}
        empty="No members."
        columns={[
          {
            label: 'Email',
            cell: (row) => (
              <span class="cell-with-badge">
                <Truncate text={row.email} />
                {row.email === props.viewer && <span class="hint">(you)</span>}
              </span>
            ),
          },
          { label: 'Role', cell: (row) => <Badge status={row.role} /> },
          {
            label: 'Status',
            cell: (row) =>
              row.invitation ? (
                <span class="cell-with-badge">
                  <Badge status="invited" />
                  <span class="hint">
                    expires <When at={row.invitation.expires_at} />
                  </span>
                </span>
              ) : (
                <Badge status="member" />
              ),
          },
          {
            label: 'Actions',
            when: props.admin,
            cell: (row) =>
              row.invitation ? (
                <ConfirmForm
                  action={`${base}/invitations/${encodeURIComponent(row.invitation.id)}/revoke`}
                  csrf={props.csrf}
                  label="Revoke"
                  question={`Revoke the invitation of ${row.email}? Its link stops working.`}
                  fields={{ email: row.email }}
                />
              ) : row.member && !removable(row.member) ? (
                <span class="hint">only owner</span>
              ) : (
                <ConfirmForm
                  action={`${base}/members/${encodeURIComponent(row.member?.account_id ?? '')}/remove`}
                  csrf={props.csrf}
                  label="Remove"
                  question={`Remove ${row.email} from the project? They lose access at once.`}
                  fields={{ email: row.email }}
                />
              ),
          },
        ]}
      />
      {props.admin ? (
        <form method="post" action={`${base}/invitations`} class="row">
          <CsrfField csrf={props.csrf} />
          <label>
            Email
            <input type="email" name="email" required autocomplete="off" />
          </label>
          <label>
            Role
            <select name="role">
              {ROLES.map((r) => (
                <option value={r} selected={r === 'read'}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Invite</button>
        </form>
      ) : null}
    </SectionCard>
  );
}

export const memberPages = new Hono<ConsoleEnv>();

memberPages.post('/projects/:p/invitations', async (c) => {
  const { api, csrf } = signedIn(c);
  const { p } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.project(p);
  let made: { email: string; role: string; accept_url: string; expires_at: string } | undefined;
  const refused = await act(
    c,
    back,
    async () => {
      made = await api.post(path`/projects/${p}/invitations`, {
        email: form.email ?? '',
        role: form.role ?? '',
      });
      return '';
    },
    'invite',
  );
  if (!made) return refused;
  return c.html(
    <SecretPage
      title={`Invited ${made.email}`}
      back={back}
      csrf={csrf}
      values={{ email: made.email, role: made.role, expires_at: made.expires_at, link: made.accept_url }}
    />,
  );
});

memberPages.post('/projects/:p/:what{(?:members|invitations)}/:id/:verb{(?:remove|revoke)}', async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, what, id, verb } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.project(p);
  const who = form.email ?? 'this person';
  const removing = what === 'members';
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title={removing ? 'Remove member' : 'Revoke invitation'}
        question={removing ? `Remove ${who} from the project?` : `Revoke the invitation of ${who}?`}
        action={`${back}/${what}/${encodeURIComponent(id)}/${verb}`}
        fields={{ email: who }}
        back={back}
        csrf={csrf}
      />,
    );
  }
  return act(c, back, async () => {
    if (removing) {
      const { removed } = await api.delete<{ removed: boolean }>(path`/projects/${p}/members/${id}`);
      return removed ? `Removed ${who}.` : `${who} was not a member.`;
    }
    const { revoked } = await api.delete<{ revoked: boolean }>(path`/projects/${p}/invitations/${id}`);
    return revoked ? `Revoked the invitation of ${who}.` : `The invitation of ${who} was no longer pending.`;
  });
});
