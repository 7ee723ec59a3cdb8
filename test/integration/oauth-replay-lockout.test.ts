/**
 * No lockout by replay or by the crowd (contract §9 Auth bodies, Nonce): a request spends the
 * app's window only once it proved new. Pins the bug of one valid, already used ID token
 * replayed from 61 clients (610 requests) spending the app's whole window of 600 and locking
 * every user out for 15 minutes, and of anonymous nonce requests filling the app's object.
 */
import { describe, expect } from 'vitest';
import { objectOf } from '../helpers/durable-objects';
import { createTestAuthApp, googleClaims, newClient } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';

describe('a replayed ID token spends nothing', () => {
  it('one used token replayed 610 times from 61 clients is 401 each time, and the next new token signs in', async ({
    standIn,
    app,
    signIn,
  }) => {
    const token = await standIn.signIdToken(googleClaims(app.google.web));
    const first = await signIn({ id_token: token });
    expect(first.status, first.text).toBe(200);
    const clients = Array.from({ length: 61 }, newClient);
    const replays = [];
    // Ten in flight at a time: the point is how many are counted, not how many at once.
    for (let sent = 0; sent < 610; sent += 10) {
      const batch = Array.from({ length: 10 }, (_, i) =>
        signIn({ id_token: token }, { client: clients[(sent + i) % 61] }),
      );
      replays.push(...(await Promise.all(batch)));
    }
    expect(replays.filter((r) => r.status === 429)).toHaveLength(0);
    expect(new Set(replays.map((r) => r.status))).toEqual(new Set([401]));
    expect(replays[0]?.body).toEqual({ error: 'invalid id token', code: 'invalid_token' });
    const fresh = await signIn({ id_token: await standIn.signIdToken(googleClaims(app.google.web)) });
    expect(fresh.status, fresh.text).toBe(200);
  }, 120_000);

  it('of ten parallel sign-ins with one token exactly one succeeds, the others are 401', async ({
    standIn,
    app,
    signIn,
  }) => {
    const token = await standIn.signIdToken(googleClaims(app.google.web));
    const results = await Promise.all(Array.from({ length: 10 }, () => signIn({ id_token: token })));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(401)]);
  });
});

describe('issued nonces cost the app nothing', () => {
  it("issuing nonces stores nothing in the app's object; a nonce is still single use", async ({
    standIn,
    worker,
    signIn,
    newNonce,
  }) => {
    const fresh = await createTestAuthApp(worker.baseUrl);
    const nonces: string[] = [];
    for (const client of Array.from({ length: 5 }, newClient)) {
      for (let i = 0; i < 10; i++) {
        const res = await newNonce({ slug: fresh.slug, client });
        expect(res.status).toBe(201);
        nonces.push(res.body.nonce);
      }
    }
    const object = await objectOf(worker.mf, 'ONE_TIME_CODES', `nonces:${fresh.slug}`);
    expect(await object.stored()).toBe(0);
    const nonce = nonces[7] as string;
    const bound = () => standIn.signIdToken(googleClaims(fresh.google.web, { nonce }));
    expect((await signIn({ id_token: await bound(), nonce }, { slug: fresh.slug })).status).toBe(200);
    expect((await signIn({ id_token: await bound(), nonce }, { slug: fresh.slug })).status).toBe(401);
  });
});
