/**
 * Clients an attacker cannot multiply: every address of one IPv6 /64 is one client, refused
 * sign-in starts do not count, and an unknown app gets 404 without a Durable Object being made.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { type ApiResponse, api } from '../helpers/api';
import { asClient, createTestAuthApp, newClient, pkcePair } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';
import {
  countedCalls,
  expectRetryAfter,
  FAKE_CODE,
  inBatches,
  randomHex,
  split,
  storedObjects,
} from '../helpers/rate-limits';

describe('clients an attacker cannot multiply', () => {
  it('exchange: every address of one IPv6 /64 is one client; another /64 is another', async ({ worker }) => {
    const { exchange } = countedCalls(() => worker.baseUrl);
    const app = await createTestAuthApp(worker.baseUrl);
    const prefix = `2001:db8:${randomHex()}:${randomHex()}`;
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => exchange(app.slug, `${prefix}:${(i + 1).toString(16)}::1`)),
    );
    expect(split(results).passed).toBe(20);
    expect((await exchange(app.slug, `${prefix}:ffff:ffff:ffff:ffff`)).status).toBe(429);
    expect((await exchange(app.slug, `2001:db8:${randomHex()}:${randomHex()}::1`)).status).toBe(400);
  });

  it('/auth/{provider}: 100 sign-in starts per client per 15 minutes, then 429; refused requests do not count', async ({
    worker,
  }) => {
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

  it("an unknown app gets 404 from every counted route and no Durable Object of its own or its client's", async ({
    worker,
  }) => {
    const objects = () => storedObjects(join(worker.persistDir, 'durable-objects'));
    // Unknown apps are counted per client in one shared object; the first 404 makes it.
    const first = await api(worker.baseUrl).post(`/v1/no-such-app-${randomHex()}/oauth/nonce`, undefined, {
      headers: asClient(),
    });
    expect(first.status).toBe(404);
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
    // Neither the made-up slugs nor the five clients add an object.
    const made = [...(await objects())].filter((name) => !before.has(name));
    expect(made).toEqual([]);
  });
});
