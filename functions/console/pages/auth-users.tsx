/** An auth app's Users: the end users who signed in, disabled, enabled or deleted by writers. */
import { Hono } from 'hono';
import { allProviders } from '../../use-cases/sign-in/providers/provider-registry';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import type { AuthUser } from '../api-shapes';
import { Badge, SectionCard, Truncate } from '../components';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { When } from '../format';
import { ConfirmForm, ConfirmPage, CsrfField } from '../layout';
import { DataTable } from '../table';

/** A provider's name as people know it (`google` → `Google`). */
const providerTitle = (name: string): string => allProviders().find((p) => p.name === name)?.title ?? name;

export const authUserPages = new Hono<ConsoleEnv>();

export function UsersSection(props: {
  users: AuthUser[] | undefined;
  base: string;
  csrf: string;
  writer: boolean;
}) {
  return (
    <SectionCard id="users" title="Users" icon="members">
      {props.users === undefined ? (
        <p>End users are listed for members with the write role.</p>
      ) : (
        <DataTable
          rows={props.users}
          empty="Nobody has signed in yet."
          columns={[
            {
              label: 'Email',
              cell: (u) => (
                <span class="cell-with-badge">
                  <Truncate text={u.email} />
                  {u.email_verified === false && <span class="hint">(not verified)</span>}
                </span>
              ),
            },
            { label: 'Signs in with', cell: (u) => (u.providers ?? []).map(providerTitle).join(', ') || '—' },
            { label: 'Status', cell: (u) => <Badge status={u.disabled ? 'disabled' : 'active'} /> },
            { label: 'Created', cell: (u) => <When at={u.created_at} /> },
            { label: 'Last sign-in', cell: (u) => <When at={u.last_sign_in_at} /> },
            {
              label: 'Change',
              when: props.writer,
              cell: (u) => (
                <span class="actions">
                  <form
                    method="post"
                    action={`${props.base}/users/${encodeURIComponent(u.id)}/${u.disabled ? 'enable' : 'disable'}`}
                    class="inline"
                  >
                    <CsrfField csrf={props.csrf} />
                    <button type="submit" class="secondary">
                      {u.disabled ? 'Enable' : 'Disable'}
                    </button>
                  </form>{' '}
                  <ConfirmForm
                    action={`${props.base}/users/${encodeURIComponent(u.id)}/delete`}
                    csrf={props.csrf}
                    label="Delete"
                    question={`Delete ${u.email}? They can sign in again as a new user.`}
                    fields={{ email: u.email }}
                  />
                </span>
              ),
            },
          ]}
        />
      )}
    </SectionCard>
  );
}

authUserPages.post('/projects/:p/auth-apps/:id/users/:uid/:action{(?:disable|enable|delete)}', async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, id, uid, action } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.service(p, 'auth-apps', id);
  const target = path`/projects/${p}/auth-apps/${id}/users/${uid}`;
  if (action === 'delete' && unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title="Delete user"
        question={`Delete ${form.email ?? 'this user'}?`}
        action={`${back}/users/${encodeURIComponent(uid)}/delete`}
        fields={{ email: form.email ?? '' }}
        back={back}
        csrf={csrf}
      />,
    );
  }
  return act(c, back, async () => {
    if (action === 'delete') {
      await api.delete(target);
      return `Deleted ${form.email ?? 'the user'}.`;
    }
    const user = await api.patch<AuthUser>(target, { disabled: action === 'disable' });
    return `${user.email} is ${user.disabled ? 'disabled' : 'enabled'}.`;
  });
});
