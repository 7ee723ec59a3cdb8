// @ts-check
/**
 * How `tether login` gets a token without one: through the browser (RFC 8252: a one-shot
 * server on 127.0.0.1, PKCE S256, state checked) or with a device code (RFC 8628: a code typed
 * into the console on any other device, polled with the server's interval). Both end at POST
 * /api/v1/cli/token, which answers a personal token named after this machine.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import { ApiRefusal, CliError, EXIT, NetworkError } from './errors.mjs';

/** How long the browser flow waits for the person to press Authorize. */
const BROWSER_WAIT_MS = 5 * 60 * 1000;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** @typedef {{ token: string, account: { id: string, email: string, name: string | null } }} CliLogin */

/** How long the personal token a browser or device login makes lives (days). */
export const LOGIN_TOKEN_DAYS = 90;

/** The name the token gets: this machine's. */
export const machineName = () => hostname() || 'tether CLI';

/** @param {Buffer} bytes */
const base64url = (bytes) => bytes.toString('base64url');

/**
 * POSTs JSON to the API without a credential; the parsed answer and status.
 * @param {string} apiUrl
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<{ status: number, body: Record<string, unknown> }>}
 */
async function postJson(apiUrl, path, body) {
  let res;
  try {
    res = await fetch(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-tether-client': 'cli' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new NetworkError(`cannot reach the API at ${apiUrl}: ${err instanceof Error ? err.message : err}`);
  }
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    throw new NetworkError(`the server at ${apiUrl} answered ${path} with something that is not JSON`);
  }
}

/**
 * The token answer, or the refusal as an error naming what the server said.
 * @param {{ status: number, body: Record<string, unknown> }} answer
 * @returns {CliLogin}
 */
function loginOf(answer) {
  if (answer.status === 200) return /** @type {CliLogin} */ (/** @type {unknown} */ (answer.body));
  const code = String(answer.body.error ?? 'error');
  const text = String(answer.body.error_description ?? code);
  throw new ApiRefusal(`login refused (${code}): ${text}`, answer.status, code);
}

/** @param {string} message */
const page = (message) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tether login</title></head><body><p>${message}</p></body></html>`;

/**
 * The browser flow: listens on 127.0.0.1, hands `open` the console's Authorize page, waits for
 * the one callback that carries our state, and trades its code.
 * @param {string} apiUrl
 * @param {(url: string) => void} open shows the URL to the person (and opens a browser if it can)
 * @returns {Promise<CliLogin>}
 */
export async function browserLogin(apiUrl, open) {
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash('sha256').update(verifier).digest());
  const state = base64url(randomBytes(16));
  /** @type {(value: { code?: string, error?: string }) => void} */
  let settle = () => undefined;
  /** @type {Promise<{ code?: string, error?: string }>} */
  const called = new Promise((resolve) => {
    settle = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // Anything but our callback with our state (a favicon, a stale tab) is not the answer.
    if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const error = url.searchParams.get('error') ?? undefined;
    const code = url.searchParams.get('code') ?? undefined;
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(
        page(
          error
            ? 'tether login was cancelled. You can close this tab.'
            : 'tether login is finishing in your terminal. You can close this tab.',
        ),
      );
    settle({ code, error });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const authorize = new URL(`${apiUrl}/console/cli-login`);
  for (const [key, value] of Object.entries({
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    name: machineName(),
  }))
    authorize.searchParams.set(key, value);
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  try {
    open(authorize.toString());
    const result = await Promise.race([
      called,
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new CliError('no answer from the browser within 5 minutes; run tether login again', EXIT.USAGE),
            ),
          BROWSER_WAIT_MS,
        );
      }),
    ]);
    const { code, error } = /** @type {{ code?: string, error?: string }} */ (result);
    if (error || !code)
      throw new ApiRefusal(`login refused in the browser (${error ?? 'no code'})`, 400, error ?? 'no_code');
    return loginOf(
      await postJson(apiUrl, '/api/v1/cli/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
      }),
    );
  } finally {
    clearTimeout(timer);
    server.close();
    server.closeAllConnections();
  }
}

/**
 * The device flow: starts a grant, hands `show` the code and where to type it, and polls at the
 * server's interval (five seconds more after each slow_down) until approved, denied or expired.
 * @param {string} apiUrl
 * @param {(start: { user_code: string, verification_uri: string, verification_uri_complete: string, expires_in: number }) => void} show
 * @returns {Promise<CliLogin>}
 */
export async function deviceLogin(apiUrl, show) {
  const started = await postJson(apiUrl, '/api/v1/cli/device', { name: machineName() });
  if (started.status !== 200) loginOf(started);
  const start = /** @type {{ device_code: string, user_code: string, verification_uri: string,
   *   verification_uri_complete: string, expires_in: number, interval: number }} */ (
    /** @type {unknown} */ (started.body)
  );
  show(start);
  let interval = start.interval;
  const deadline = Date.now() + start.expires_in * 1000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, interval * 1000));
    const answer = await postJson(apiUrl, '/api/v1/cli/token', {
      grant_type: DEVICE_GRANT,
      device_code: start.device_code,
    });
    const error = answer.status === 200 ? undefined : String(answer.body.error ?? '');
    if (error === 'authorization_pending' && Date.now() < deadline) continue;
    if (error === 'slow_down') {
      interval += 5;
      continue;
    }
    return loginOf(answer);
  }
}

/**
 * Revokes `token` itself on the server (DELETE /api/v1/account/token); false when the server no
 * longer knew it (401: already revoked or expired), which leaves nothing to revoke.
 * @param {string} apiUrl
 * @param {string} token
 * @returns {Promise<boolean>}
 */
export async function revokeOwnToken(apiUrl, token) {
  let res;
  try {
    res = await fetch(`${apiUrl}/api/v1/account/token`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'x-tether-client': 'cli' },
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new NetworkError(`cannot reach the API at ${apiUrl}: ${err instanceof Error ? err.message : err}`);
  }
  if (res.status === 401) return false;
  if (res.ok) return true;
  const body = /** @type {{ error?: { message?: string, code?: string } }} */ (
    await res.json().catch(() => ({}))
  );
  throw new ApiRefusal(body.error?.message ?? `the API answered ${res.status}`, res.status, body.error?.code);
}
