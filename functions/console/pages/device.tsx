/**
 * The browser half of `tether login --device` (RFC 8628): the signed-in person types the code
 * the terminal shows (`verification_uri_complete` fills it in) and presses `Authorize` or `Deny`.
 * A code that arrives in the link shows the machine that asks first (its name, the address it
 * started from and when), and the page asks the person to check the code against their own
 * terminal (RFC 8628 §5.4: a link someone else sent must not sign their machine in). The API
 * counts wrong codes, lookups included: after ten, every try is refused for a while.
 */
import { Hono } from 'hono';
import { act, formOf } from '../actions';
import { ApiFailure } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { When } from '../format';
import { CsrfField, Layout } from '../layout';

/** The machine asking, as POST /cli/device/lookup answers. */
interface AskingDevice {
  name: string;
  ip: string | null;
  started_at: string | null;
}

/** What the page shows about the asking device: the device, or why it cannot be shown. */
function AskingDeviceNote(props: { device?: AskingDevice; problem?: string }) {
  if (props.problem) return <p role="alert">{props.problem}</p>;
  if (!props.device) return null;
  const d = props.device;
  return (
    <section aria-labelledby="asking-heading" class="stack">
      <h2 id="asking-heading">The device asking</h2>
      <dl>
        <dt>Device</dt>
        <dd>{d.name}</dd>
        <dt>Requested from</dt>
        <dd>{d.ip ?? 'an unknown address'}</dd>
        <dt>Started</dt>
        <dd>
          <When at={d.started_at} />
        </dd>
      </dl>
    </section>
  );
}

export const devicePages = new Hono<ConsoleEnv>();

devicePages.get('/device', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const given = (c.req.query('user_code') ?? '').slice(0, 32);
  let device: AskingDevice | undefined;
  let problem: string | undefined;
  if (given.trim()) {
    try {
      device = await api.post<AskingDevice>('/cli/device/lookup', { user_code: given });
    } catch (err) {
      if (!(err instanceof ApiFailure) || (err.status !== 404 && err.status !== 429)) throw err;
      problem = err.message;
    }
  }
  return c.html(
    <Layout title="Sign in a device" csrf={csrf} flash={flash}>
      <section class="card">
        <AskingDeviceNote device={device} problem={problem} />
        <p id="check-code" class="hint">
          Check that this code is exactly the one <strong>your own terminal</strong> shows. If you did not
          just run <code>tether login --device</code> yourself, or someone sent you this link, press Deny.
        </p>
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
