/**
 * Rate limits of the auth service: 20 exchanges and 10 ID-token sign-ins per client, 600 of
 * each per app, per 15 minutes; exact under concurrent load, clients counted before any other
 * work (an IPv6 client by its /64), the app's window only by requests that present a live code
 * or a verified token of the app, 429 with Retry-After in seconds. Clients are named by CLIENT_IP_HEADER. The objects keep
 * their windows, codes and blocks in storage: they sweep what expired, and a restart of the
 * Worker loses nothing (oauth-object-storage.test.ts). Clients an attacker cannot multiply are in
 * oauth-rate-limit-clients.test.ts.
 */
import { describe, expect } from 'vitest';
import { api } from '../helpers/api';
import { objectOf } from '../helpers/durable-objects';
import { asClient, createTestAuthApp, googleClaims, newClient, oneTimeCode } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';
import { countedCalls, expectRetryAfter, inBatches, split } from '../helpers/rate-limits';

let floodCount = 0;

describe('per-client limits', () => {
  it('exchange: exactly 20 of 100 parallel requests from one client pass, the rest are 429 with Retry-After', async ({
    worker,
  }) => {
    const { exchange } = countedCalls(() => worker.baseUrl);
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

  it('id-token: exactly 10 of 100 parallel requests from one client pass', async ({ worker }) => {
    const { idToken } = countedCalls(() => worker.baseUrl);
    const app = await createTestAuthApp(worker.baseUrl);
    const client = newClient();
    const { passed, limited } = split(
      await Promise.all(Array.from({ length: 100 }, () => idToken(app.slug, client))),
    );
    expect(passed).toBe(10);
    expect(limited).toHaveLength(90);
    for (const res of limited) expectRetryAfter(res);
  });

  it('requests are counted before any other work: malformed ones count, and a spent client gets 429 even for them', async ({
    worker,
  }) => {
    const { exchange } = countedCalls(() => worker.baseUrl);
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
  // 600 exchanges with made-up codes from 30 made-up clients spent the app's window
  // for 15 minutes, locking every user of the app out.
  it('exchange: a flood of made-up codes from 30 clients spends no app window, and a valid code still gets in', async ({
    standIn,
    worker,
  }) => {
    const { exchange } = countedCalls(() => worker.baseUrl);
    const app = await createTestAuthApp(worker.baseUrl);
    const clients = Array.from({ length: 30 }, newClient);
    const flood = split(await inBatches(600, () => exchange(app.slug, clients[floodCount++ % 30] as string)));
    expect(flood.passed).toBe(600);
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const res = await exchange(app.slug, newClient(), { code, code_verifier: verifier });
    expect(res.status, res.text).toBe(200);
  });

  it('id-token: a flood of forged tokens from 60 clients spends no app window, and a valid token still signs in', async ({
    standIn,
    worker,
  }) => {
    const { idToken } = countedCalls(() => worker.baseUrl);
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

  it('id-token: 600 verified tokens of the app per window, exact; then 429 with Retry-After', async ({
    standIn,
    worker,
  }) => {
    const app = await createTestAuthApp(worker.baseUrl);
    // One returning Google account, so the sign-ins only open sessions; a token signs in once
    // (a replay is refused before it counts), so each sign-in brings a token of its own.
    const claims = googleClaims(app.google.web);
    const tokens = await Promise.all(
      Array.from({ length: 650 }, (_, i) => standIn.signIdToken({ ...claims, jti: `t-${i}` })),
    );
    let sent = 0;
    const send = () =>
      api(worker.baseUrl).post(
        `/v1/${app.slug}/oauth/id-token`,
        { provider: 'google', id_token: tokens[sent++] },
        { headers: asClient() },
      );
    const { passed, limited } = split(await inBatches(650, send));
    expect(passed).toBe(600);
    expect(limited).toHaveLength(50);
    for (const res of limited) expectRetryAfter(res);
    // 650 sign-ins that each open a session: more than the default 30 s on a loaded machine.
  }, 120_000);

  it('exchange: the app window counts live codes only, exactly (600, at the object)', async ({ worker }) => {
    const store = await objectOf(worker.mf, 'ONE_TIME_CODES', `app-window-${newClient()}`);
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
