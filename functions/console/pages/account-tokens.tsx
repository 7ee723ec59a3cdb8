/**
 * The Tokens page (contract §10): the person's personal tokens with their expiry and last use,
 * `Create token` (`Name`, `Expires`, read-only) whose value is shown on the answer page once,
 * and `Revoke` per row after a confirmation, which offers to revoke what the token minted too
 * (`?cascade=true`: a leaked token's descendants). Every change is the API's own
 * (/account/tokens), so the CLI's `tether tokens` sees the same list.
 */
import { Hono } from 'hono';
import { act, formOf, unconfirmed } from '../actions';
import { ApiFailure, path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { redirectWith } from '../flash';
import { When } from '../format';
import { Card, ConfirmForm, ConfirmPage, CsrfField, Layout } from '../layout';
import { DataTable } from '../table';
import { SecretPage } from './principals';

/** A personal token as the API lists it (never its value). */
export interface TokenRow {
  id: string;
  name: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  read_only: boolean;
}

const DAY_MS = 86_400_000;

/** The revoke confirmation's choice to revoke what the token minted too (a leaked token). */
const CASCADE_OPTION = {
  name: 'cascade',
  label: 'Also revoke every token and session made with it, and what those made',
};

/** Days until `typed` (a number of days, or a date), for the API's expires_in_days; undefined when empty. */
export function expiryDays(typed: string | undefined, now = Date.now()): number | undefined {
  const text = (typed ?? '').trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T23:59:59Z` : text);
  // Not a date: a number the API refuses, with its own words.
  return Number.isNaN(at) ? -1 : Math.ceil((at - now) / DAY_MS);
}

/** The table of live tokens, each with `Revoke` (posting back to `back` when done). */
export function TokensTable(props: { tokens: TokenRow[]; csrf: string; back: string }) {
  return (
    <DataTable
      rows={props.tokens}
      empty="No personal tokens."
      columns={[
        { label: 'Name', cell: (t) => t.name ?? '(unnamed)' },
        { label: 'Expires', cell: (t) => (t.expires_at ? <When at={t.expires_at} /> : 'never') },
        { label: 'Last used', cell: (t) => <When at={t.last_used_at} /> },
        { label: 'Access', cell: (t) => (t.read_only ? 'read-only' : 'full') },
        {
          label: 'Change',
          cell: (t) => (
            <ConfirmForm
              action={`/console/tokens/${encodeURIComponent(t.id)}/revoke`}
              csrf={props.csrf}
              label="Revoke"
              question={`Revoke ${t.name ?? 'this token'}? Anything using it stops working at once.`}
              fields={{ name: t.name ?? 'this token', back: props.back }}
              ariaLabel={`Revoke ${t.name ?? 'token'}`}
              option={CASCADE_OPTION}
            />
          ),
        },
      ]}
    />
  );
}

export const tokenPages = new Hono<ConsoleEnv>();

tokenPages.get('/tokens', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { tokens } = await api.get<{ tokens: TokenRow[] }>('/account/tokens');
  return c.html(
    <Layout title="Tokens" crumbs={[{ href: '/console/tokens', label: 'Tokens' }]} csrf={csrf} flash={flash}>
      <Card id="tokens" title="Personal tokens">
        <p class="hint">
          Tokens act as you in scripts, CI and the CLI (<code>tether login</code> makes one per machine).
        </p>
        <TokensTable tokens={tokens} csrf={csrf} back="/console/tokens" />
      </Card>
      <Card id="create-token" title="Create a token">
        <form method="post" action="/console/tokens" class="stack">
          <CsrfField csrf={csrf} />
          <label>
            Name
            <input type="text" name="name" required maxlength={200} />
          </label>
          <label>
            Expires
            <input type="text" name="expires" placeholder="90" aria-describedby="expires-hint" />
            <span id="expires-hint" class="hint">
              Days from now (1 to 365) or a date, YYYY-MM-DD; 90 days when empty.
            </span>
          </label>
          <label class="check">
            <input type="checkbox" name="read_only" value="yes" />
            Read-only (it can read everything you can, and change nothing)
          </label>
          <div>
            <button type="submit">Create token</button>
          </div>
        </form>
      </Card>
    </Layout>,
  );
});

tokenPages.post('/tokens', async (c) => {
  const { api, csrf } = signedIn(c);
  const form = await formOf(c);
  let made: (TokenRow & { token: string }) | undefined;
  const refused = await act(
    c,
    '/console/tokens',
    async () => {
      const days = expiryDays(form.expires);
      made = await api.post<TokenRow & { token: string }>('/account/tokens', {
        name: form.name ?? '',
        ...(days === undefined ? {} : { expires_in_days: days }),
        ...(form.read_only === 'yes' ? { read_only: true } : {}),
      });
      return '';
    },
    'token',
  );
  if (!made) return refused;
  return c.html(
    <SecretPage
      title={`${made.read_only ? 'Read-only token' : 'Token'} ${made.name} created`}
      back="/console/tokens"
      csrf={csrf}
      values={{
        name: made.name,
        token: made.token,
        expires_at: made.expires_at,
      }}
    />,
  );
});

tokenPages.post('/tokens/:tokenId/revoke', async (c) => {
  const { api, csrf } = signedIn(c);
  const tokenId = c.req.param('tokenId');
  const form = await formOf(c);
  const back = form.back === '/console/account' ? '/console/account' : '/console/tokens';
  const name = form.name ?? 'this token';
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title="Revoke token"
        question={`Revoke ${name}? Anything using it stops working at once.`}
        action={`/console/tokens/${encodeURIComponent(tokenId)}/revoke`}
        fields={{ name, back }}
        back={back}
        csrf={csrf}
        option={CASCADE_OPTION}
      />,
    );
  }
  try {
    const cascade = form.cascade === 'yes';
    await api.delete(`${path`/account/tokens/${tokenId}`}${cascade ? '?cascade=true' : ''}`);
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404)
      return redirectWith(c, back, { kind: 'notice', text: `${name} was already revoked.` });
    throw err;
  }
  return redirectWith(c, back, { kind: 'notice', text: `Revoked ${name}.` });
});
