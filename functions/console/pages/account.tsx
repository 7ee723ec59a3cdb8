/**
 * The account page: who is signed in, the console sessions (each can be ended) and the personal
 * tokens (each can be revoked) with their created and last-used times, `Sign out everywhere`
 * (every console session ends, this one too), and the account's recent sign-ins and token
 * changes. Its reads go to the API at once, so the page costs one round trip.
 */
import { Hono } from 'hono';
import { formOf, unconfirmed } from '../actions';
import { ApiFailure, path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { redirectWith } from '../flash';
import { actionWords, VIA_WORDS, When } from '../format';
import { Card, ConfirmForm, ConfirmPage, Layout } from '../layout';
import { clearSessionCookie } from '../security';
import { DataTable } from '../table';
import { type TokenRow, TokensTable } from './account-tokens';

interface SessionRow {
  id: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  current: boolean;
}

interface EventRow {
  id: string;
  at: string;
  via: string;
  action: string;
  ip?: string;
  details: Record<string, unknown>;
}

const BACK = '/console/account';

export const accountPages = new Hono<ConsoleEnv>();

accountPages.get('/account', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const [me, { sessions }, { tokens }, { events }] = await Promise.all([
    api.get<{ email: string; name: string | null }>('/account'),
    api.get<{ sessions: SessionRow[] }>('/account/sessions'),
    api.get<{ tokens: TokenRow[] }>('/account/tokens'),
    api.get<{ events: EventRow[] }>('/account/activity?limit=10'),
  ]);
  return c.html(
    <Layout title="Account" crumbs={[{ href: BACK, label: 'Account' }]} csrf={csrf} flash={flash}>
      <section class="card">
        <p>
          Signed in as <strong>{me.email}</strong>
          {me.name ? ` (${me.name})` : ''}.
        </p>
        <ConfirmForm
          action="/console/account/sign-out-everywhere"
          csrf={csrf}
          label="Sign out everywhere"
          danger={false}
          question="End every console session of this account, this one included?"
        />
      </section>
      <Card id="sessions" title="Console sessions">
        <DataTable
          rows={sessions}
          empty="No console sessions."
          columns={[
            {
              label: 'Signed in',
              cell: (s) => (
                <>
                  <When at={s.created_at} />
                  {s.current ? ' (this browser)' : ''}
                </>
              ),
            },
            { label: 'Last used', cell: (s) => <When at={s.last_used_at} /> },
            { label: 'Ends', cell: (s) => <When at={s.expires_at} /> },
            {
              label: 'Change',
              cell: (s) => (
                <ConfirmForm
                  action={`/console/account/sessions/${encodeURIComponent(s.id)}/end`}
                  csrf={csrf}
                  label="End session"
                  danger={false}
                  question="End this console session?"
                />
              ),
            },
          ]}
        />
      </Card>
      <Card id="account-tokens" title="Personal tokens">
        <TokensTable tokens={tokens} csrf={csrf} back={BACK} />
        <p>
          <a href="/console/tokens">Create a token</a>
        </p>
      </Card>
      <Card id="account-activity" title="Recent sign-ins and token changes">
        {events.length === 0 ? (
          <p>Nothing yet.</p>
        ) : (
          <ul>
            {events.map((e) => (
              <li>
                <When at={e.at} />
                {` ${actionWords(e.action)}, ${VIA_WORDS[e.via] ?? e.via}${e.ip ? ` from ${e.ip}` : ''}`}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </Layout>,
  );
});

accountPages.post('/account/sessions/:sessionId/end', async (c) => {
  const { api, csrf } = signedIn(c);
  const sessionId = c.req.param('sessionId');
  const action = `/console/account/sessions/${encodeURIComponent(sessionId)}/end`;
  const form = await formOf(c);
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title="End session"
        question="End this console session?"
        action={action}
        fields={{}}
        back={BACK}
        csrf={csrf}
      />,
    );
  }
  try {
    await api.delete(path`/account/sessions/${sessionId}`);
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 404) throw err;
  }
  return redirectWith(c, BACK, { kind: 'notice', text: 'The session ended.' });
});

accountPages.post('/account/sign-out-everywhere', async (c) => {
  const { api, csrf } = signedIn(c);
  const form = await formOf(c);
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title="Sign out everywhere"
        question="End every console session of this account, this one included?"
        action="/console/account/sign-out-everywhere"
        fields={{}}
        back={BACK}
        csrf={csrf}
      />,
    );
  }
  await api.delete('/account/sessions');
  clearSessionCookie(c);
  return c.redirect('/console/login', 303);
});
