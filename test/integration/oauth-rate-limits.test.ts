/**
 * Rate limits of the auth service: 20 exchanges and 10 ID-token sign-ins per client, 600 of
 * each per app, per 15 minutes; exact under concurrent load, counted before any other work,
 * 429 with Retry-After in seconds. Clients are named by CLIENT_IP_HEADER. The objects keep
 * their windows, codes and blocks in storage: they sweep what expired, and a restart of the
 * Worker loses nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  disableNewestUser,
  newClient,
  oneTimeCode,
  startOAuthWorker,
} from '../helpers/oauth';
import { type ProviderStandIn, startProviderStandIn } from '../helpers/provider-stand-in';
import type { ExtraWorker } from '../helpers/worker';

let standIn: ProviderStandIn;
let worker: ExtraWorker;

beforeAll(async () => {
  standIn = await startProviderStandIn();
  worker = await startOAuthWorker(standIn);
});

afterAll(async () => {
  await worker?.stop();
  await standIn?.close();
});

const FAKE_CODE = { code: 'A'.repeat(43), code_verifier: 'v'.repeat(43) };
const exchange = (slug: string, client: string, body: unknown = FAKE_CODE) =>
  api(worker.baseUrl).post(`/v1/${slug}/oauth/exchange`, body, { headers: asClient(client) });
const idToken = (slug: string, client: string) =>
  api(worker.baseUrl).post(
    `/v1/${slug}/oauth/id-token`,
    { provider: 'google', id_token: 'x.y.z' },
    { headers: asClient(client) },
  );

/** Runs `count` requests, 100 in flight at a time (more would exceed the local Postgres's connections). */
async function inBatches(count: number, send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const out: ApiResponse[] = [];
  for (let done = 0; done < count; done += 100) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(100, count - done) }, send))));
  }
  return out;
}

function split(results: ApiResponse[]) {
  const limited = results.filter((r) => r.status === 429);
  return { passed: results.length - limited.length, limited };
}

function expectRetryAfter(res: ApiResponse): void {
  const value = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(value)).toBe(true);
  expect(value).toBeGreaterThan(0);
  expect(value).toBeLessThanOrEqual(15 * 60);
}

describe('per-client limits', () => {
  it('exchange: exactly 20 of 100 parallel requests from one client pass, the rest are 429 with Retry-After', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const client = newClient();
    const { passed, limited } = split(
      await Promise.all(Array.from({ length: 100 }, () => exchange(app.slug, client))),
    );
    expect(passed).toBe(20);
    expect(limited).toHaveLength(80);
    for (const res of limited) expectRetryAfter(res);
    expect(limited[0]?.body).toEqual({ error: 'too many requests' });
    // Another client is not affected.
    expect((await exchange(app.slug, newClient())).status).toBe(400);
  });

  it('id-token: exactly 10 of 100 parallel requests from one client pass', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const client = newClient();
    const { passed, limited } = split(
      await Promise.all(Array.from({ length: 100 }, () => idToken(app.slug, client))),
    );
    expect(passed).toBe(10);
    expect(limited).toHaveLength(90);
    for (const res of limited) expectRetryAfter(res);
  });

  it('requests are counted before any other work: malformed ones count, and a spent client gets 429 even for them', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const client = newClient();
    const malformed = await Promise.all(
      Array.from({ length: 20 }, () => exchange(app.slug, client, { nonsense: true })),
    );
    expect(malformed.every((r) => r.status === 400)).toBe(true);
    const next = await api(worker.baseUrl).post(`/v1/${app.slug}/oauth/exchange`, undefined, {
      rawBody: '{broken',
      headers: asClient(client),
    });
    expect(next.status).toBe(429);
    expectRetryAfter(next);
  });
});

describe('per-app limits', () => {
  it('exchange: 600 per app, exact, and a noisy client spends only its own 20 of them', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const noisy = newClient();
    const first = split(await Promise.all(Array.from({ length: 100 }, () => exchange(app.slug, noisy))));
    expect(first.passed).toBe(20);
    const many = split(await inBatches(600, () => exchange(app.slug, newClient())));
    expect(many.passed).toBe(580);
    expect(many.limited).toHaveLength(20);
    for (const res of many.limited) expectRetryAfter(res);
    // Other apps keep their own budget.
    const other = await createTestAuthApp(worker.baseUrl);
    expect((await exchange(other.slug, newClient())).status).toBe(400);
  });

  it('id-token: 600 per app, exact', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const { passed, limited } = split(await inBatches(650, () => idToken(app.slug, newClient())));
    expect(passed).toBe(600);
    expect(limited).toHaveLength(50);
  });
});

describe('Durable Object state', () => {
  it('a rate window resets after 15 minutes and refused requests are counted nowhere', async () => {
    const ns = await worker.mf.getDurableObjectNamespace('RATE_COUNTERS');
    const counter = ns.get(ns.idFromName(`window-test-${newClient()}`)) as unknown as {
      take(
        checks: Array<{ key: string; limit: number }>,
        windowMs: number,
        now: number,
      ): Promise<{ allowed: boolean; retryAfter: number }>;
    };
    const window = 15 * 60 * 1000;
    const t0 = 1_900_000_000_000;
    const checks = [
      { key: 'client:a', limit: 2 },
      { key: 'app', limit: 3 },
    ];
    expect((await counter.take(checks, window, t0)).allowed).toBe(true);
    expect((await counter.take(checks, window, t0 + 1)).allowed).toBe(true);
    const refused = await counter.take(checks, window, t0 + 60_000);
    expect(refused).toMatchObject({ allowed: false, retryAfter: 14 * 60 });
    // The refused hit did not count against the app: one more client fits, then the app is spent.
    expect(
      (
        await counter.take(
          [
            { key: 'client:b', limit: 2 },
            { key: 'app', limit: 3 },
          ],
          window,
          t0 + 2,
        )
      ).allowed,
    ).toBe(true);
    expect(
      (
        await counter.take(
          [
            { key: 'client:c', limit: 2 },
            { key: 'app', limit: 3 },
          ],
          window,
          t0 + 3,
        )
      ).allowed,
    ).toBe(false);
    expect((await counter.take(checks, window, t0 + window)).allowed).toBe(true);
  });

  it('the alarm sweeps expired one-time codes and keeps live ones', async () => {
    const ns = await worker.mf.getDurableObjectNamespace('ONE_TIME_CODES');
    const store = ns.get(ns.idFromName(`sweep-test-${newClient()}`)) as unknown as {
      issue(hash: string, value: string, ttlMs: number): Promise<void>;
      redeem(hash: string): Promise<{ value: string; block: string | null } | null>;
      stored(): Promise<number>;
    };
    await store.issue('live', '{"ok":true}', 120_000);
    // Already expired: its alarm is due at once.
    await store.issue('expired', '{}', -1);
    const deadline = Date.now() + 5_000;
    let stored = await store.stored();
    while (stored !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stored = await store.stored();
    }
    expect(stored).toBe(1);
    expect(await store.redeem('expired')).toBeNull();
    expect(await store.redeem('live')).toEqual({ value: '{"ok":true}', block: null });
    expect(await store.redeem('live')).toBeNull();
  });

  // A restart of the Worker (a redeploy, an eviction) starts every object afresh from storage.
  it('after a restart of the Worker, spent rate windows stay spent (exchange and id-token); other clients start from zero', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const exchanger = newClient();
    const signer = newClient();
    for (let i = 0; i < 20; i++) expect((await exchange(app.slug, exchanger)).status).toBe(400);
    for (let i = 0; i < 10; i++) expect((await idToken(app.slug, signer)).status).toBe(401);
    worker = await worker.restart();
    const refusedExchange = await exchange(app.slug, exchanger);
    expect(refusedExchange.status).toBe(429);
    expect(Number(refusedExchange.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await idToken(app.slug, signer)).status).toBe(429);
    expect((await exchange(app.slug, newClient())).status).toBe(400);
    expect((await idToken(app.slug, newClient())).status).toBe(401);
  });

  it("after a restart of the Worker, a code issued before its user was disabled is still 403 'Account is disabled'", async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    await disableNewestUser(app);
    worker = await worker.restart();
    const res = await exchange(app.slug, newClient(), { code, code_verifier: verifier });
    expect([res.status, res.body]).toEqual([403, { error: 'Account is disabled' }]);
  });
});
