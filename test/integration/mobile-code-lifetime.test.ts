/**
 * The mobile sign-in's one-time code lives 120 seconds (the code lifecycle, docs/auth-service.md:
 * "within 120 seconds" exchanged, expired after): traded at 119 s, refused `invalid_grant` at
 * 120 s. The Worker runs in this process on the real OneTimeCodes objects (workerd) and the real
 * metadata database; its clock is this process's, set with vi.setSystemTime, and the objects keep
 * the lifetime by the time the Worker sends them, so no test waits.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { api } from '../helpers/api';
import { startNodeDurableObjects } from '../helpers/durable-objects';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';
import {
  asClient,
  CLIENT_IP_HEADER,
  createTestAuthApp,
  INVALID_GRANT,
  oneTimeCode,
  type TestAuthApp,
} from '../helpers/oauth';
import { type ProviderStandIn, startProviderStandIn } from '../helpers/provider-stand-in';

let objects: Awaited<ReturnType<typeof startNodeDurableObjects>>;
let standIn: ProviderStandIn;
let app: InProcessApp;
let authApp: TestAuthApp;

beforeAll(async () => {
  objects = await startNodeDurableObjects();
  standIn = await startProviderStandIn();
  app = await startInProcessApp({ ...standIn.env, CLIENT_IP_HEADER }, objects.namespaces);
  authApp = await createTestAuthApp(app.baseUrl);
}, 60_000);
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await app?.stop();
  await objects?.stop();
  await standIn?.close();
});

const exchange = (body: { code: string; verifier: string }) =>
  api(app.baseUrl).post<{ access_token?: string; error?: string; code?: string }>(
    `/v1/${authApp.slug}/oauth/exchange`,
    { code: body.code, code_verifier: body.verifier },
    { headers: asClient() },
  );

describe('the mobile one-time code, on the Worker clock', () => {
  it('is exchanged at 119 s and refused invalid_grant at 120 s', async () => {
    const t0 = Date.now();
    vi.setSystemTime(t0);
    const early = await oneTimeCode(app.baseUrl, standIn, authApp.slug);
    const late = await oneTimeCode(app.baseUrl, standIn, authApp.slug);

    vi.setSystemTime(t0 + 119_000);
    const traded = await exchange(early);
    expect(traded.status, traded.text).toBe(200);
    expect(traded.body.access_token).toEqual(expect.any(String));

    vi.setSystemTime(t0 + 120_000);
    const refused = await exchange(late);
    expect([refused.status, refused.body]).toEqual([400, INVALID_GRANT]);
  });
});
