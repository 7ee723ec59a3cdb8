/** An auth app's Users: the end users who signed in, disabled, enabled or deleted by writers. */
import { Hono } from 'hono';
import { allProviders } from '../../services/sign-in/providers/registry';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import { path } from '../api';
import { type ConsoleEnv, signedIn } from '../context';
import { When } from '../format';
import { ConfirmForm, ConfirmPage, CsrfField } from '../layout';
import type { AuthUser } from '../types';

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
    <section class="card" aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      {props.users === undefined ? (
        <p>End users are listed for members with the write role.</p>
      ) : props.users.length === 0 ? (
        <p>Nobody has signed in yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="stack-sm">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Signs in with</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Last sign-in</th>
                {props.writer && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {props.users.map((u) => (
                <tr>
                  <td data-label="E-mail" class="wrap-any">
                    {u.email}
                    {u.email_verified === false && <span class="hint"> (not verified)</span>}
                  </td>
                  <td data-label="Signs in with">
                    {(u.providers ?? []).map(providerTitle).join(', ') || '—'}
                  </td>
                  <td data-label="Status">{u.disabled ? 'disabled' : 'active'}</td>
                  <td data-label="Created">
                    <When at={u.created_at} />
                  </td>
                  <td data-label="Last sign-in">
                    <When at={u.last_sign_in_at} />
                  </td>
                  {props.writer && (
                    <td data-label="Change">
                      <form
                        method="post"
                        action={`${props.base}/users/${encodeURIComponent(u.id)}/${u.disabled ? 'enable' : 'disable'}`}
                        class="inline"
                      >
                        <CsrfField csrf={props.csrf} />
                        <button type="submit">{u.disabled ? 'Enable' : 'Disable'}</button>
                      </form>{' '}
                      <ConfirmForm
                        action={`${props.base}/users/${encodeURIComponent(u.id)}/delete`}
                        csrf={props.csrf}
                        label="Delete"
                        question={`Delete ${u.email}? They can sign in again as a new user.`}
                        fields={{ email: u.email }}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
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
