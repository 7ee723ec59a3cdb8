/**
 * The auth service's Durable Objects keep their state in storage: a restart of the Worker (a
 * redeploy, an eviction) starts every object afresh from it, so a spent rate window stays spent
 * and a blocked code stays refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  newClient,
  oneTimeCode,
  startOAuthWorker,
  type TestAuthApp,
} from '../helpers/oauth';
import { type ProviderStandIn, startProviderStandIn } from '../helpers/provider-stand-in';
import type { ExtraWorker } from '../helpers/worker';

let standIn: ProviderStandIn;
let worker: ExtraWorker;
let app: TestAuthApp;

beforeAll(async () => {
  standIn = await startProviderStandIn();
  worker = await startOAuthWorker(standIn);
  app = await createTestAuthApp(worker.baseUrl);
});

afterAll(async () => {
  await worker?.stop();
  await standIn?.close();
});

const FAKE_CODE = { code: 'A'.repeat(43), code_verifier: 'v'.repeat(43) };
const exchange = (body: unknown, client: string) =>
  api(worker.baseUrl).post(`/v1/${app.slug}/oauth/exchange`, body, { headers: asClient(client) });
const idToken = (client: string) =>
  api(worker.baseUrl).post(
    `/v1/${app.slug}/oauth/id-token`,
    { provider: 'google', id_token: 'x.y.z' },
    { headers: asClient(client) },
  );

describe('after a restart of the Worker', () => {
  it('spent rate windows stay spent (exchange and id-token) and other clients are still counted from zero', async () => {
    const exchanger = newClient();
    const signer = newClient();
    for (let i = 0; i < 20; i++) expect((await exchange(FAKE_CODE, exchanger)).status).toBe(400);
    for (let i = 0; i < 10; i++) expect((await idToken(signer)).status).toBe(401);
    worker = await worker.restart();
    const refusedExchange = await exchange(FAKE_CODE, exchanger);
    expect(refusedExchange.status).toBe(429);
    expect(Number(refusedExchange.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await idToken(signer)).status).toBe(429);
    expect((await exchange(FAKE_CODE, newClient())).status).toBe(400);
    expect((await idToken(newClient())).status).toBe(401);
  });

  it("a code issued before its user was disabled is still refused with 403 'Account is disabled'", async () => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const users = await app.admin.get<{ users: Array<{ id: string }> }>(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users?limit=1000`,
    );
    const newest = users.body.users.at(-1) as { id: string };
    const disabled = await app.admin.patch(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${newest.id}`,
      { disabled: true },
    );
    expect(disabled.status).toBe(200);
    worker = await worker.restart();
    const res = await exchange({ code, code_verifier: verifier }, newClient());
    expect([res.status, res.body]).toEqual([403, { error: 'Account is disabled' }]);
  });
});
