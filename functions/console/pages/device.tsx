/**
 * The browser half of `tether login --device` (RFC 8628): the signed-in person types the code
 * the terminal shows (`verification_uri_complete` fills it in) and presses `Authorize` or `Deny`.
 * The API counts wrong codes: after ten, every try is refused for a while.
 */
import { Hono } from 'hono';
import { act, formOf } from '../actions';
import { type ConsoleEnv, signedIn } from '../context';
import { CsrfField, Layout } from '../layout';

export const devicePages = new Hono<ConsoleEnv>();

devicePages.get('/device', (c) => {
  const { csrf, flash } = signedIn(c);
  const given = (c.req.query('user_code') ?? '').slice(0, 32);
  return c.html(
    <Layout title="Sign in a device" csrf={csrf} flash={flash}>
      <section class="card">
        <form method="post" action="/console/device" class="stack">
          <CsrfField csrf={csrf} />
          <label for="user_code">User code</label>
          <input
            id="user_code"
            name="user_code"
            value={given}
            required
            autocomplete="off"
            autocapitalize="characters"
            spellcheck={false}
            aria-describedby="user-code-hint"
          />
          <p id="user-code-hint" class="hint">
            The eight letters <code>tether login --device</code> shows in your terminal, like BCDF-GHJK.
            Authorizing gives that machine a personal token for your account for 90 days.
          </p>
          <div class="actions">
            <button type="submit" name="decision" value="approve">
              Authorize
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
          </div>
        </form>
      </section>
    </Layout>,
  );
});

devicePages.post('/device', async (c) => {
  const { api } = signedIn(c);
  const form = await formOf(c);
  const approve = form.decision === 'approve';
  return act(
    c,
    '/console/device',
    async () => {
      const { name } = await api.post<{ name: string }>('/cli/device/decision', {
        user_code: form.user_code ?? '',
        approve,
      });
      return approve
        ? `Signed in ${name}: go back to your terminal.`
        : `Denied the sign-in of ${name}; it gets no token.`;
    },
    'device',
  );
});
