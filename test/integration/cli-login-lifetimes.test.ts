/**
 * The lifetimes of `tether login`'s codes over HTTP (contract §10): the browser flow's code is
 * traded until 120 s and refused from then on, a device code is pending and can be approved
 * until 600 s and is `expired_token` from then on. The Worker runs in this process on the real
 * OneTimeCodes objects (workerd) and the real metadata database; its clock is this process's,
 * set with vi.setSystemTime, and the objects keep the lifetimes by the time the Worker sends
 * them, so no test waits. A token answer is exactly `{token, account}`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, createAccount } from '../helpers/api';
import { startNodeDurableObjects } from '../helpers/durable-objects';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const REDIRECT = 'http://127.0.0.1:49152/callback';

let objects: Awaited<ReturnType<typeof startNodeDurableObjects>>;
let app: InProcessApp;

beforeAll(async () => {
  objects = await startNodeDurableObjects();
  app = await startInProcessApp({}, objects.namespaces);
}, 60_000);
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await app?.stop();
  await objects?.stop();
});

/** A new account's dashboard session: what the console's Authorize calls the API with. */
async function signedIn(): Promise<{ email: string; session: string }> {
  const owner = await createAccount(undefined, app.baseUrl);
  const res = await api(app.baseUrl, owner.token).post<{ token: string }>('/api/v1/account/sessions');
  expect(res.status, res.text).toBe(201);
  return { email: owner.email, session: res.body.token };
}

const token = (body: unknown) =>
  api(app.baseUrl).post<{ error?: string; token?: string; account?: { email: string } }>(
    '/api/v1/cli/token',
    body,
  );

/** The browser flow's code for a new PKCE pair, issued by the session's Authorize. */
async function authorized(session: string): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const res = await api(app.baseUrl, session).post<{ redirect_to: string }>('/api/v1/cli/authorizations', {
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    name: 'laptop',
  });
  expect(res.status, res.text).toBe(201);
  return { code: new URL(res.body.redirect_to).searchParams.get('code') ?? '', verifier };
}

describe("tether login's codes over HTTP, on the Worker's clock", () => {
  it("the browser flow's code is traded at 119 s and refused at 120 s", async () => {
    const { email, session } = await signedIn();
    const t0 = Date.now();
    vi.setSystemTime(t0);
    const early = await authorized(session);
    const late = await authorized(session);

    vi.setSystemTime(t0 + 119_000);
    const traded = await token({
      grant_type: 'authorization_code',
      code: early.code,
      code_verifier: early.verifier,
    });
    expect(traded.status, traded.text).toBe(200);
    expect(Object.keys(traded.body).sort()).toEqual(['account', 'token']);
    expect(traded.body.account?.email).toBe(email);

    vi.setSystemTime(t0 + 120_000);
    const refused = await token({
      grant_type: 'authorization_code',
      code: late.code,
      code_verifier: late.verifier,
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  });

  it('a device code is pending and approvable at 599 s, expired_token at 600 s, its user code gone', async () => {
    const { email, session } = await signedIn();
    const t0 = Date.now();
    vi.setSystemTime(t0);
    const start = () =>
      api(app.baseUrl).post<{ device_code: string; user_code: string; expires_in: number }>(
        '/api/v1/cli/device',
        {
          name: 'build-box',
        },
      );
    const [approved, waiting] = [await start(), await start()];
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.expires_in).toBe(600);
    const poll = (deviceCode: string) => token({ grant_type: DEVICE_GRANT, device_code: deviceCode });
    const decide = (userCode: string) =>
      api(app.baseUrl, session).post('/api/v1/cli/device/decision', { user_code: userCode, approve: true });

    vi.setSystemTime(t0 + 599_000);
    expect((await poll(waiting.body.device_code)).body.error).toBe('authorization_pending');
    const decided = await decide(approved.body.user_code);
    expect(decided.status, decided.text).toBe(200);
    const signedInCli = await poll(approved.body.device_code);
    expect(signedInCli.status, signedInCli.text).toBe(200);
    expect(Object.keys(signedInCli.body).sort()).toEqual(['account', 'token']);
    expect(signedInCli.body.account?.email).toBe(email);

    vi.setSystemTime(t0 + 600_000);
    const expired = await poll(waiting.body.device_code);
    expect(expired.status, expired.text).toBe(400);
    expect(expired.body.error).toBe('expired_token');
    expect((await decide(waiting.body.user_code)).status).toBe(404);
  });
});
