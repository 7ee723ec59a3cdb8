/**
 * The auth service's Durable Objects keep their rate windows, codes and blocks in storage: a
 * window resets after 15 minutes, the alarm sweeps expired codes, and a restart of the Worker
 * (a redeploy, an eviction) loses no spent window and no block.
 */
import { describe, expect } from 'vitest';
import { objectOf } from '../helpers/durable-objects';
import { eventually } from '../helpers/eventually';
import { createTestAuthApp, disableNewestUser, newClient, oneTimeCode } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';
import { countedCalls } from '../helpers/rate-limits';

describe('Durable Object state', () => {
  it('a rate window resets after 15 minutes and refused requests are counted nowhere', async ({ worker }) => {
    const counter = await objectOf(worker.mf, 'RATE_COUNTERS', `window-test-${newClient()}`);
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

  it('the alarm sweeps expired one-time codes and keeps live ones', async ({ worker }) => {
    const store = await objectOf(worker.mf, 'ONE_TIME_CODES', `sweep-test-${newClient()}`);
    await store.issue('live', '{"ok":true}', 120_000);
    // Already expired: its alarm is due at once.
    await store.issue('expired', '{}', -1);
    const stored = await eventually(
      () => store.stored(),
      (n) => n === 1,
      5_000,
      'the sweep of the expired code',
    );
    expect(stored).toBe(1);
    expect(await store.redeem('expired')).toBeNull();
    expect(await store.redeem('live')).toEqual({ value: '{"ok":true}', block: null });
    expect(await store.redeem('live')).toBeNull();
  });

  // A restart of the Worker (a redeploy, an eviction) starts every object afresh from storage.
  it('after a restart of the Worker, spent rate windows stay spent (exchange and id-token); other clients start from zero', async ({
    worker,
  }) => {
    const { exchange, idToken } = countedCalls(() => worker.baseUrl);
    const app = await createTestAuthApp(worker.baseUrl);
    const exchanger = newClient();
    const signer = newClient();
    for (let i = 0; i < 20; i++) expect((await exchange(app.slug, exchanger)).status).toBe(400);
    for (let i = 0; i < 10; i++) expect((await idToken(app.slug, signer)).status).toBe(401);
    await worker.restart();
    const refusedExchange = await exchange(app.slug, exchanger);
    expect(refusedExchange.status).toBe(429);
    expect(Number(refusedExchange.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await idToken(app.slug, signer)).status).toBe(429);
    expect((await exchange(app.slug, newClient())).status).toBe(400);
    expect((await idToken(app.slug, newClient())).status).toBe(401);
  });

  it("after a restart of the Worker, a code issued before its user was disabled is still 403 'Account is disabled'", async ({
    standIn,
    worker,
  }) => {
    const { exchange } = countedCalls(() => worker.baseUrl);
    const app = await createTestAuthApp(worker.baseUrl);
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    await disableNewestUser(app);
    await worker.restart();
    const res = await exchange(app.slug, newClient(), { code, code_verifier: verifier });
    expect([res.status, res.body]).toEqual([403, { error: 'Account is disabled' }]);
  });
});
