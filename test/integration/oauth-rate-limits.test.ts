/**
 * Rate limits of the auth service: 20 exchanges and 10 ID-token sign-ins per client, 600 of
 * each per app, per 15 minutes; exact under concurrent load, clients counted before any other
 * work (an IPv6 client by its /64), the app's window only by requests that present a live code
 * or a verified token of the app, 429 with Retry-After in seconds. Clients are named by CLIENT_IP_HEADER. The objects keep
 * their windows, codes and blocks in storage: they sweep what expired, and a restart of the
 * Worker loses nothing.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  disableNewestUser,
  googleClaims,
  newClient,
  oneTimeCode,
  pkcePair,
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

let floodCount = 0;

const randomHex = () => randomBytes(2).toString('hex');

/** How many files lie under `dir` (Miniflare keeps one SQLite file per Durable Object). */
/**
 * The Durable Objects stored under `dir`, one name each: an object's database file, with the
 * journal files SQLite makes and removes beside it folded in. Objects whose state expired may
 * vanish meanwhile, so a test compares which names are new rather than how many there are.
 */
async function storedObjects(dir: string): Promise<Set<string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return new Set(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).replace(/-(wal|shm|journal)$/, '')),
  );
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
  // Issue 16: 600 exchanges with made-up codes from 30 made-up clients spent the app's window
  // for 15 minutes, locking every user of the app out.
  it('exchange: a flood of made-up codes from 30 clients spends no app window, and a valid code still gets in', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const clients = Array.from({ length: 30 }, newClient);
    const flood = split(await inBatches(600, () => exchange(app.slug, clients[floodCount++ % 30] as string)));
    expect(flood.passed).toBe(600);
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const res = await exchange(app.slug, newClient(), { code, code_verifier: verifier });
    expect(res.status, res.text).toBe(200);
  });

  it('id-token: a flood of forged tokens from 60 clients spends no app window, and a valid token still signs in', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const clients = Array.from({ length: 60 }, newClient);
    const flood = split(await inBatches(600, () => idToken(app.slug, clients[floodCount++ % 60] as string)));
    expect(flood.passed).toBe(600);
    const token = await standIn.signIdToken(googleClaims(app.google.web));
    const res = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/id-token`,
      { provider: 'google', id_token: token },
      { headers: asClient() },
    );
    expect(res.status, res.text).toBe(200);
  });

  it('id-token: 600 verified tokens of the app per window, exact; then 429 with Retry-After', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    // One returning Google account, so the sign-ins only open sessions.
    const claims = googleClaims(app.google.web);
    const token = await standIn.signIdToken(claims);
    const send = () =>
      api(worker.baseUrl).post(
        `/v1/${app.slug}/oauth/id-token`,
        { provider: 'google', id_token: token },
        { headers: asClient() },
      );
    const { passed, limited } = split(await inBatches(650, send));
    expect(passed).toBe(600);
    expect(limited).toHaveLength(50);
    for (const res of limited) expectRetryAfter(res);
    // 650 sign-ins that each open a session: more than the default 30 s on a loaded machine.
  }, 120_000);

  it('exchange: the app window counts live codes only, exactly (600, at the object)', async () => {
    const ns = await worker.mf.getDurableObjectNamespace('ONE_TIME_CODES');
    const store = ns.get(ns.idFromName(`app-window-${newClient()}`)) as unknown as {
      issue(hash: string, value: string, ttlMs: number): Promise<void>;
      countAndRedeem(
        checks: Array<{ key: string; limit: number }>,
        windowMs: number,
        hash: string | null,
        presented: Array<{ key: string; limit: number }>,
      ): Promise<{ decision: { allowed: boolean }; redeemed: unknown }>;
    };
    const app = [{ key: 'app', limit: 3 }];
    const window = 15 * 60 * 1000;
    for (let i = 0; i < 10; i++) {
      const garbage = await store.countAndRedeem(
        [{ key: `client:${i}`, limit: 20 }],
        window,
        `nope-${i}`,
        app,
      );
      expect(garbage.decision.allowed).toBe(true);
    }
    for (let i = 0; i < 4; i++) await store.issue(`live-${i}`, '{}', 120_000);
    const live = [];
    for (let i = 0; i < 4; i++)
      live.push(await store.countAndRedeem([{ key: `client:x${i}`, limit: 20 }], window, `live-${i}`, app));
    expect(live.map((r) => r.decision.allowed)).toEqual([true, true, true, false]);
    // A refused request burns nothing: the fourth code is still there once the window allows.
    expect(live[3]?.redeemed).toBeNull();
  });
});

describe('clients an attacker cannot multiply', () => {
  it('exchange: every address of one IPv6 /64 is one client; another /64 is another', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const prefix = `2001:db8:${randomHex()}:${randomHex()}`;
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => exchange(app.slug, `${prefix}:${(i + 1).toString(16)}::1`)),
    );
    expect(split(results).passed).toBe(20);
    expect((await exchange(app.slug, `${prefix}:ffff:ffff:ffff:ffff`)).status).toBe(429);
    expect((await exchange(app.slug, `2001:db8:${randomHex()}:${randomHex()}::1`)).status).toBe(400);
  });

  it('/auth/{provider}: 100 sign-in starts per client per 15 minutes, then 429; refused requests do not count', async () => {
    const app = await createTestAuthApp(worker.baseUrl);
    const client = newClient();
    const start = async (redirect_uri: string) => {
      const { challenge } = await pkcePair();
      const query = new URLSearchParams({
        redirect_uri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      return api(worker.baseUrl).get(`/v1/${app.slug}/auth/github?${query}`, { headers: asClient(client) });
    };
    for (let i = 0; i < 5; i++) expect((await start('myapp://evil')).status).toBe(400);
    const results = await inBatches(110, () => start('myapp://auth'));
    expect(results.filter((r) => r.status === 302)).toHaveLength(100);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    expectRetryAfter(limited[0] as ApiResponse);
    expect(
      (
        await api(worker.baseUrl).get(
          `/v1/${app.slug}/auth/github?redirect_uri=myapp://auth&code_challenge=${(await pkcePair()).challenge}&code_challenge_method=S256`,
          { headers: asClient() },
        )
      ).status,
    ).toBe(302);
  });

  it('an unknown app gets 404 from every counted route and no Durable Object', async () => {
    const objects = () => storedObjects(join(worker.persistDir, 'durable-objects'));
    const before = await objects();
    for (let i = 0; i < 5; i++) {
      const slug = `no-such-app-${randomHex()}`;
      const client = asClient();
      const results = await Promise.all([
        api(worker.baseUrl).post(`/v1/${slug}/oauth/exchange`, FAKE_CODE, { headers: client }),
        api(worker.baseUrl).post(
          `/v1/${slug}/oauth/id-token`,
          { provider: 'google', id_token: 'x.y.z' },
          { headers: client },
        ),
        api(worker.baseUrl).post(`/v1/${slug}/oauth/nonce`, undefined, { headers: client }),
        api(worker.baseUrl).get(`/v1/${slug}/auth/google?redirect_uri=myapp://auth`, { headers: client }),
        api(worker.baseUrl).get(`/v1/${slug}/auth/github/callback?state=${'A'.repeat(43)}&code=x`, {
          headers: client,
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual([404, 404, 404, 404, 404]);
    }
    const made = [...(await objects())].filter((name) => !before.has(name));
    expect(made).toEqual([]);
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
