/**
 * `tether login` end to end: the CLI as a subprocess with its loopback server, headless
 * Chromium signed in to the console pressing `Authorize` (or `Cancel`), the stored token working
 * on `tether whoami`, and `tether logout` revoking it; `--device` with a second browser typing
 * the user code. The API halves are checked over HTTP: the code is single use, bound to its
 * PKCE verifier and redirect, only a loopback redirect is accepted, and device polling answers
 * RFC 8628's errors. A Worker of its own, whose clients come from a test header, keeps the
 * per-client limits of this file away from every other test's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createAccount, type TestAccount } from '../helpers/api';
import { chromiumForFile } from '../helpers/browser';
import { type CliHome, cliHome, exitOf, runCli, spawnCli, waitForOutput } from '../helpers/cli';
import { expectAccessible, signedInPage } from '../helpers/console';
import { asClient, CLIENT_IP_HEADER } from '../helpers/oauth';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

let worker: ExtraWorker;
const browser = chromiumForFile();
const homes: CliHome[] = [];
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

beforeAll(async () => {
  worker = await startExtraWorker({ CLIENT_IP_HEADER });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await Promise.all(homes.map((h) => h.cleanup()));
});

async function home(): Promise<CliHome> {
  const h = await cliHome();
  homes.push(h);
  return h;
}

async function account(): Promise<TestAccount> {
  return createAccount(undefined, worker.baseUrl);
}

/** A dashboard session of `token`: what the console's pages call the API with. */
async function sessionOf(token: string): Promise<string> {
  const res = await api(worker.baseUrl, token).post<{ token: string }>('/api/v1/account/sessions');
  expect(res.status, res.text).toBe(201);
  return res.body.token;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const token = (body: unknown, headers: Record<string, string> = asClient()) =>
  api(worker.baseUrl).post<{ error?: string; token?: string }>('/api/v1/cli/token', body, { headers });

describe('tether login through the browser', { timeout: 120_000 }, () => {
  it('Authorize in the browser stores a 90-day token named after the machine; whoami works; logout revokes it', async () => {
    const owner = await account();
    const page = await signedInPage(browser, worker.baseUrl, owner.token);
    const h = await home();
    const child = spawnCli(h, ['login', '--api', worker.baseUrl]);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    const printed = await waitForOutput(child, /http:\/\/\S+\/console\/cli-login\?\S+/, 20_000, 'stderr');
    const url = /http:\/\/\S+\/console\/cli-login\?\S+/.exec(printed)?.[0] ?? '';
    await page.goto(url);
    await expect(page.getByText(hostname()).first().isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.getByText('You can close this tab').waitFor();
    expect(await exitOf(child, 20_000)).toBe(0);
    expect(stdout).toContain(`as ${owner.email}`);

    const whoami = await runCli(h, ['whoami']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toContain(owner.email);
    const listed = await api(worker.baseUrl, owner.token).get<{
      tokens: Array<{ name: string; expires_at: string }>;
    }>('/api/v1/account/tokens');
    const made = listed.body.tokens.find((t) => t.name === hostname());
    expect(made).toBeDefined();
    const days = (Date.parse(made?.expires_at ?? '') - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);

    const out = await runCli(h, ['logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('Revoked the token on the server');
    const after = await api(worker.baseUrl, owner.token).get<{ tokens: Array<{ name: string }> }>(
      '/api/v1/account/tokens',
    );
    expect(after.body.tokens.some((t) => t.name === hostname())).toBe(false);
    expect((await runCli(h, ['whoami'])).code).toBe(1);
    await page.context().close();
  });

  it('Cancel in the browser refuses the login: the CLI exits 2 and stores nothing', async () => {
    const owner = await account();
    const page = await signedInPage(browser, worker.baseUrl, owner.token);
    const h = await home();
    const child = spawnCli(h, ['login', '--api', worker.baseUrl]);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const printed = await waitForOutput(child, /http:\/\/\S+\/console\/cli-login\?\S+/, 20_000, 'stderr');
    await page.goto(/http:\/\/\S+\/console\/cli-login\?\S+/.exec(printed)?.[0] ?? '');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await exitOf(child, 20_000)).toBe(2);
    expect(stderr).toContain('access_denied');
    expect((await runCli(h, ['whoami'])).code).toBe(1);
    await page.context().close();
  });

  it('the code is single use and bound to its verifier and redirect; ten redemptions at once give one token', async () => {
    const owner = await account();
    const session = await sessionOf(owner.token);
    const as = api(worker.baseUrl, session);
    const redirect = 'http://127.0.0.1:49152/callback';
    const authorize = async (challenge: string) => {
      const res = await as.post<{ redirect_to: string }>('/api/v1/cli/authorizations', {
        redirect_uri: redirect,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st',
        name: 'laptop',
      });
      expect(res.status, res.text).toBe(201);
      const back = new URL(res.body.redirect_to);
      expect(`${back.origin}${back.pathname}`).toBe(redirect);
      expect(back.searchParams.get('state')).toBe('st');
      return back.searchParams.get('code') ?? '';
    };
    const first = pkce();
    const code = await authorize(first.challenge);
    const wrong = await token({ grant_type: 'authorization_code', code, code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    // The failed attempt used the code up.
    const late = await token({ grant_type: 'authorization_code', code, code_verifier: first.verifier });
    expect(late.body.error).toBe('invalid_grant');

    const second = pkce();
    const fresh = await authorize(second.challenge);
    const tries = await Promise.all(
      Array.from({ length: 10 }, () =>
        token({ grant_type: 'authorization_code', code: fresh, code_verifier: second.verifier }),
      ),
    );
    expect(tries.filter((t) => t.status === 200)).toHaveLength(1);
    const won = tries.find((t) => t.status === 200);
    // Contract §10's answer exactly: the token and its account, nothing more.
    expect(Object.keys(won?.body ?? {}).sort()).toEqual(['account', 'token']);
    expect(won?.body).toMatchObject({ account: { email: owner.email } });
    expect((await api(worker.baseUrl, won?.body.token).get('/api/v1/account')).status).toBe(200);
    const listed = await api(worker.baseUrl, owner.token).get<{ tokens: Array<{ name: string }> }>(
      '/api/v1/account/tokens',
    );
    expect(listed.body.tokens.filter((t) => t.name === 'laptop')).toHaveLength(1);
  });

  it('only a loopback redirect and only a dashboard session may authorize', async () => {
    const owner = await account();
    const session = await sessionOf(owner.token);
    const body = (redirect_uri: string) => ({
      redirect_uri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 's',
      name: 'x',
    });
    for (const bad of [
      'https://evil.example/callback',
      'http://localhost:8000/callback',
      'http://127.0.0.1/callback',
      'http://user@127.0.0.1:8000/callback',
      'http://127.0.0.1:8000/callback#x',
      'http://127.1:8000/callback',
    ]) {
      const res = await api(worker.baseUrl, session).post('/api/v1/cli/authorizations', body(bad));
      expect(res.status, bad).toBe(400);
    }
    const byToken = await api(worker.baseUrl, owner.token).post(
      '/api/v1/cli/authorizations',
      body('http://127.0.0.1:8000/callback'),
    );
    expect(byToken.status).toBe(403);
    const page = await signedInPage(browser, worker.baseUrl, owner.token);
    const res = await page.goto(
      `/console/cli-login?redirect_uri=${encodeURIComponent('https://evil.example/cb')}&code_challenge=${pkce().challenge}&code_challenge_method=S256&state=s`,
    );
    expect(res?.status()).toBe(400);
    expect(await page.getByRole('button', { name: 'Authorize' }).count()).toBe(0);
    await page.context().close();
  });
});

describe('tether login --device', { timeout: 120_000 }, () => {
  it('a second browser typing the user code signs the CLI in', async () => {
    const owner = await account();
    const h = await home();
    const child = spawnCli(h, ['login', '--device', '--api', worker.baseUrl]);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    const printed = await waitForOutput(child, /\b[B-Z]{4}-[B-Z]{4}\b/, 20_000, 'stderr');
    const userCode = /\b[B-Z]{4}-[B-Z]{4}\b/.exec(printed)?.[0] ?? '';
    expect(printed).toContain(`${worker.baseUrl}/console/device`);
    const page = await signedInPage(browser, worker.baseUrl, owner.token, '/console/device');
    await page.getByLabel('User code').fill(userCode.toLowerCase().replace('-', ' '));
    await page.getByRole('button', { name: 'Authorize' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('go back to your terminal');
    expect(await exitOf(child, 30_000)).toBe(0);
    expect(stdout).toContain(`as ${owner.email}`);
    const whoami = await runCli(h, ['whoami']);
    expect(whoami.stdout).toContain(owner.email);
    await page.context().close();
  });

  it('a device link shows the machine asking (name, address, start) and asks to check the code against the terminal (RFC 8628 §5.4)', async () => {
    const owner = await account();
    const client = asClient();
    const start = await api(worker.baseUrl).post<{
      device_code: string;
      user_code: string;
      verification_uri_complete: string;
    }>('/api/v1/cli/device', { name: 'attacker-box' }, { headers: client });
    expect(start.status, start.text).toBe(200);
    const path = new URL(start.body.verification_uri_complete);
    const page = await signedInPage(browser, worker.baseUrl, owner.token, `${path.pathname}${path.search}`);
    const asking = page.getByRole('region', { name: 'The device asking' });
    await expect(asking.textContent()).resolves.toContain('attacker-box');
    await expect(asking.textContent()).resolves.toContain(Object.values(client)[0] as string);
    const startedAt = Date.parse((await asking.locator('time').getAttribute('datetime')) ?? '');
    expect(Math.abs(Date.now() - startedAt)).toBeLessThan(60_000);
    await expect(page.getByText('exactly the one your own terminal shows').count()).resolves.toBe(1);
    // Authorized through this console session, the token is a descendant of the owner's token:
    // a cascade revoke of that token ends it.
    await page.getByRole('button', { name: 'Authorize' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('go back to your terminal');
    const issued = await token({ grant_type: DEVICE_GRANT, device_code: start.body.device_code }, client);
    expect(issued.body.token).toMatch(/^tth_at_/);
    const ownerTokens = await api(worker.baseUrl, owner.token).get<{
      tokens: Array<{ id: string; name: string }>;
    }>('/api/v1/account/tokens');
    const initial = ownerTokens.body.tokens.find((t) => t.name === 'initial');
    const cascade = await api(worker.baseUrl, issued.body.token).delete(
      `/api/v1/account/tokens/${initial?.id}?cascade=true`,
    );
    expect(cascade.status).toBe(200);
    expect((await api(worker.baseUrl, issued.body.token).get('/api/v1/account')).status).toBe(401);
    await page.context().close();
  });

  it('a code typed on the device page that no machine asked for shows nothing about any device', async () => {
    const owner = await account();
    const page = await signedInPage(
      browser,
      worker.baseUrl,
      owner.token,
      '/console/device?user_code=BBBB-CCCC',
    );
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'no sign-in is waiting for that code',
    );
    expect(await page.getByRole('region', { name: 'The device asking' }).count()).toBe(0);
    await page.context().close();
  });

  it('polling answers authorization_pending, slow_down, access_denied after Deny, then expired_token', async () => {
    const owner = await account();
    const session = await sessionOf(owner.token);
    const client = asClient();
    const start = await api(worker.baseUrl).post<{
      device_code: string;
      user_code: string;
      interval: number;
    }>('/api/v1/cli/device', { name: 'build-box' }, { headers: client });
    expect(start.status, start.text).toBe(200);
    expect(start.body).toMatchObject({ expires_in: 600, interval: 5 });
    expect(start.body.user_code).toMatch(/^[B-Z]{4}-[B-Z]{4}$/);
    const poll = () => token({ grant_type: DEVICE_GRANT, device_code: start.body.device_code }, client);
    expect((await poll()).body.error).toBe('authorization_pending');
    expect((await poll()).body.error).toBe('slow_down');
    const denied = await api(worker.baseUrl, session).post('/api/v1/cli/device/decision', {
      user_code: start.body.user_code,
      approve: false,
    });
    expect(denied.status, denied.text).toBe(200);
    // A decided grant answers at once, whatever the interval.
    expect((await poll()).body.error).toBe('access_denied');
    expect((await poll()).body.error).toBe('expired_token');
    expect((await token({ grant_type: DEVICE_GRANT, device_code: 'made-up' }, client)).body.error).toBe(
      'expired_token',
    );
  });

  it('ten wrong user codes, then even the right one is refused', async () => {
    const owner = await account();
    const session = await sessionOf(owner.token);
    const client = asClient();
    const start = await api(worker.baseUrl).post<{ user_code: string }>(
      '/api/v1/cli/device',
      {},
      { headers: client },
    );
    const decide = (user_code: string) =>
      api(worker.baseUrl, session).post(
        '/api/v1/cli/device/decision',
        { user_code, approve: true },
        { headers: client },
      );
    for (let i = 0; i < 10; i++) expect((await decide('BBBB-BBBB')).status).toBe(404);
    const refused = await decide(start.body.user_code);
    expect(refused.status).toBe(429);
  });
});

describe('limits and self-revocation', { timeout: 120_000 }, () => {
  it('a client gets 20 device starts and 30 code exchanges per 15 minutes, then 429 with Retry-After', async () => {
    const client = asClient();
    for (let i = 0; i < 20; i++) {
      const ok = await api(worker.baseUrl).post('/api/v1/cli/device', {}, { headers: client });
      expect(ok.status, ok.text).toBe(200);
    }
    const refused = await api(worker.baseUrl).post('/api/v1/cli/device', {}, { headers: client });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = asClient();
    const grant = { grant_type: 'authorization_code', code: 'made-up', code_verifier: pkce().verifier };
    for (let i = 0; i < 30; i++) expect((await token(grant, other)).status).toBe(400);
    const limited = await token(grant, other);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });

  it('a token revokes itself, read-only ones too; a session cannot', async () => {
    const owner = await account();
    const made = await api(worker.baseUrl, owner.token).post<{ token: string }>('/api/v1/account/tokens', {
      name: 'ro',
      read_only: true,
    });
    const readOnly = api(worker.baseUrl, made.body.token);
    expect((await readOnly.delete('/api/v1/account/token')).status).toBe(200);
    expect((await readOnly.get('/api/v1/account')).status).toBe(401);
    const session = await sessionOf(owner.token);
    expect((await api(worker.baseUrl, session).delete('/api/v1/account/token')).status).toBe(403);
    expect((await api(worker.baseUrl, owner.token).get('/api/v1/account')).status).toBe(200);
  });
});
