/**
 * The invitation page (`accept_url`): the signed-in person sees which project and role the
 * invitation offers and accepts it with `Accept invitation`; without a session the console's
 * sign-in (GitHub, Google or a token) leads back here first.
 */
import { Hono } from 'hono';
import { act, consolePath } from '../actions';
import { ApiFailure, path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { CsrfField, Layout } from '../layout';

interface Offered {
  email: string;
  role: string;
  expires_at: string;
  project: { id: string; slug: string; name: string };
}

export const invitationPages = new Hono<ConsoleEnv>();

invitationPages.get('/invitations/:token', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const token = c.req.param('token');
  let offered: Offered | undefined;
  try {
    offered = await api.get<Offered>(path`/invitations/${token}`);
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 404) throw err;
  }
  return c.html(
    <Layout title="Invitation" csrf={csrf} flash={flash}>
      <section class="card">
        {offered ? (
          <form method="post" action={`/console/invitations/${encodeURIComponent(token)}`} class="stack">
            <CsrfField csrf={csrf} />
            <p>
              You are invited to <strong>{offered.project.name}</strong> as <strong>{offered.role}</strong>
              {` (for ${offered.email}, until ${offered.expires_at.slice(0, 10)}).`}
            </p>
            <div>
              <button type="submit">Accept invitation</button>
            </div>
          </form>
        ) : (
          <p>This invitation is unknown, already used, revoked or expired. Ask for a new one.</p>
        )}
      </section>
    </Layout>,
    offered ? 200 : 404,
  );
});

invitationPages.post('/invitations/:token', async (c) => {
  const { api } = signedIn(c);
  const token = c.req.param('token');
  let projectId: string | undefined;
  const refused = await act(c, `/console/invitations/${encodeURIComponent(token)}`, async () => {
    projectId = (await api.post<{ project_id: string }>(path`/invitations/${token}/accept`)).project_id;
    return '';
  });
  if (!projectId) return refused;
  return act(c, consolePath.project(projectId), async () => 'Invitation accepted: welcome to the project.');
});
