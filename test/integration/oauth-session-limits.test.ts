/**
 * The auth routes no caller may use without bound: refresh and logout are counted per client
 * and app, a client naming unknown apps is counted (429 with Retry-After past its limit, then
 * answered without a metadata read), and an app's pending browser sign-ins are capped per
 * object: past the cap a new one is refused (with when room frees up) and none in progress is
 * pushed out, so a flood of starts neither grows storage without bound nor ends anyone's
 * sign-in. Clients are named by CLIENT_IP_HEADER.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import {
  SESSION_LIMITS,
  UNKNOWN_APP_REQUESTS_PER_CLIENT,
} from '../../functions/use-cases/sign-in/rate-limit';
import { api } from '../helpers/api';
import { startDurableObjects } from '../helpers/durable-objects';
import { asClient, newClient } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';
import { expectRetryAfter, inBatches, split } from '../helpers/rate-limits';
import type { ExtraWorker } from '../helpers/worker';

const post = (worker: ExtraWorker, path: string, client: string, body: unknown) =>
  api(worker.baseUrl).post(path, body, { headers: asClient(client) });

describe('session routes are counted per client', () => {
  for (const [route, path] of [
    ['refresh', 'oauth/refresh'],
    ['logout', 'logout'],
  ] as const) {
    it(`${route}: ${SESSION_LIMITS[route]} requests from one client pass, the next is 429 with Retry-After`, async ({
      worker,
      app,
    }) => {
      const client = newClient();
      const body = { refresh_token: `unknown-${randomBytes(8).toString('hex')}` };
      const { passed, limited } = split(
        await inBatches(SESSION_LIMITS[route] + 5, () =>
          post(worker, `/v1/${app.slug}/${path}`, client, body),
        ),
      );
      expect(passed).toBe(SESSION_LIMITS[route]);
      expect(limited).toHaveLength(5);
      for (const res of limited) expectRetryAfter(res);
      expect(limited[0]?.body).toEqual({ error: 'too many requests' });
      // Another client is not affected.
      expect((await post(worker, `/v1/${app.slug}/${path}`, newClient(), body)).status).not.toBe(429);
    });
  }
});

describe('requests naming unknown apps', () => {
  it('are 404 up to the limit, then 429 with Retry-After on every auth route, for that client only', async ({
    worker,
    app,
  }) => {
    const client = newClient();
    const start = (slug: string, who = client) =>
      api(worker.baseUrl).get(`/v1/${slug}/auth/google?redirect_uri=myapp://auth`, {
        headers: asClient(who),
      });
    const unknown = () => `nope-${randomBytes(6).toString('hex')}`;
    for (let i = 0; i < UNKNOWN_APP_REQUESTS_PER_CLIENT; i++)
      expect((await start(unknown())).status).toBe(404);
    const refused = await start(unknown());
    expect(refused.status).toBe(429);
    expectRetryAfter(refused);
    // The same client naming unknown apps on the token routes is refused too.
    const exchange = await post(worker, `/v1/${unknown()}/oauth/exchange`, client, {
      code: 'A'.repeat(43),
      code_verifier: 'v'.repeat(43),
    });
    expect(exchange.status).toBe(429);
    expectRetryAfter(exchange);
    // Another client still gets the 404, and a real app's start is not this limit's business.
    expect((await start(unknown(), newClient())).status).toBe(404);
    expect((await start(app.slug, newClient())).status).not.toBe(429);
  });
});

describe("an app's pending sign-in state", () => {
  it('keeps at most the cap: past it a new record is refused with its wait, and every record in progress is redeemed', async () => {
    const objects = await startDurableObjects();
    try {
      const scope = objects.codes.scope(`state:cap-test:${randomBytes(4).toString('hex')}`);
      const cap = 5;
      const kept = [];
      for (let i = 0; i < cap + 3; i++) kept.push(await scope.issueWithin(`h${i}`, `v${i}`, 600_000, cap));
      expect(kept.slice(0, cap)).toEqual(Array(cap).fill({ stored: true }));
      for (const refused of kept.slice(cap)) {
        expect(refused.stored).toBe(false);
        if (!refused.stored) expect(refused.retryAfterMs).toBeGreaterThan(590_000);
      }
      expect(await scope.peek('h0')).toBe('v0');
      const redeemed = [];
      for (let i = 0; i < cap + 3; i++) redeemed.push((await scope.redeem(`h${i}`))?.value ?? null);
      expect(redeemed).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', null, null, null]);
      // Redeemed records make room again.
      expect(await scope.issueWithin('h-next', 'v', 600_000, cap)).toEqual({ stored: true });
    } finally {
      await objects.stop();
    }
  });
});
