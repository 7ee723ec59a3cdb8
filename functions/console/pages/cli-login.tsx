/**
 * The browser half of `tether login` (RFC 8252): /console/cli-login shows which machine asks,
 * and `Authorize` sends the browser back to the CLI's loopback address with a one-time code
 * (issued by the API's POST /cli/authorizations); `Cancel` sends it back with `access_denied`.
 * A link whose redirect is not a loopback address is refused here and leads nowhere.
 */
import { Hono } from 'hono';
import { callbackUrl, loopbackRedirectProblem } from '../../domain/cli-login-rules';
import { CHALLENGE_METHOD, CODE_CHALLENGE_RE } from '../../domain/pkce';
import { formOf } from '../actions';
import { ApiFailure } from '../console-api';
import { type ConsoleContext, type ConsoleEnv, signedIn } from '../console-env';
import { CsrfField, Layout } from '../layout';
import { consoleCsp } from '../security';

/** What the CLI put in the link it opened. */
interface CliRequest {
  redirect_uri: string;
  code_challenge: string;
  code_challenge_method: string;
  state: string;
  name: string;
}

const FIELDS = ['redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'name'] as const;

/** The request from the link's query or the posted form, or why it is refused. */
function readRequest(source: Record<string, string | undefined>): CliRequest | { problem: string } {
  const request: CliRequest = {
    redirect_uri: source.redirect_uri ?? '',
    code_challenge: source.code_challenge ?? '',
    code_challenge_method: source.code_challenge_method ?? '',
    state: source.state ?? '',
    name: (source.name ?? '').trim().slice(0, 100) || 'tether CLI',
  };
  const problem =
    loopbackRedirectProblem(request.redirect_uri) ??
    (CODE_CHALLENGE_RE.test(request.code_challenge) ? null : 'code_challenge is missing or malformed') ??
    (request.code_challenge_method === CHALLENGE_METHOD ? null : 'code_challenge_method must be S256') ??
    (request.state && request.state.length <= 512 ? null : 'state is missing');
  return problem ? { problem } : request;
}

function Refused({ c, problem }: { c: ConsoleContext; problem: string }) {
  const { csrf } = signedIn(c);
  return (
    <Layout title="Sign in the tether CLI" csrf={csrf}>
      <section class="card">
        <p role="alert">{`This sign-in link is not valid: ${problem}.`}</p>
        <p>
          Run <code>tether login</code> again, or <code>tether login --device</code> on a machine without a
          browser.
        </p>
      </section>
    </Layout>
  );
}

export const cliLoginPages = new Hono<ConsoleEnv>();

cliLoginPages.get('/cli-login', (c) => {
  const request = readRequest(c.req.query());
  if ('problem' in request) return c.html(<Refused c={c} problem={request.problem} />, 400);
  const { csrf } = signedIn(c);
  const target = new URL(request.redirect_uri);
  // The answer to this page's form is a redirect to the CLI on this machine.
  c.header('Content-Security-Policy', consoleCsp(target.origin));
  return c.html(
    <Layout title="Sign in the tether CLI" csrf={csrf}>
      <section class="card stack">
        <p>
          The tether command-line tool on <strong>{request.name}</strong> asks to sign in to your account.
        </p>
        <p>
          It gets a personal token named <strong>{request.name}</strong> that lasts 90 days (see{' '}
          <a href="/console/tokens">Tokens</a> to revoke it), handed to the tool listening at{' '}
          <code>{target.host}</code> on this computer. Authorize only if you just ran{' '}
          <code>tether login</code> yourself.
        </p>
        <form method="post" action="/console/cli-login" class="actions">
          <CsrfField csrf={csrf} />
          {FIELDS.map((field) => (
            <input type="hidden" name={field} value={request[field]} />
          ))}
          <button type="submit" name="decision" value="authorize">
            Authorize
          </button>
          <button type="submit" name="decision" value="cancel" class="secondary">
            Cancel
          </button>
        </form>
      </section>
    </Layout>,
  );
});

cliLoginPages.post('/cli-login', async (c) => {
  const { api } = signedIn(c);
  const form = await formOf(c);
  const request = readRequest(form);
  if ('problem' in request) return c.html(<Refused c={c} problem={request.problem} />, 400);
  if (form.decision !== 'authorize') {
    return c.redirect(
      callbackUrl(request.redirect_uri, { error: 'access_denied', state: request.state }),
      303,
    );
  }
  try {
    const { redirect_to } = await api.post<{ redirect_to: string }>('/cli/authorizations', request);
    return c.redirect(redirect_to, 303);
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status === 401 || err.status >= 500) throw err;
    return c.html(<Refused c={c} problem={err.message} />, 400);
  }
});
