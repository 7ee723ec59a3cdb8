/**
 * POST /v1/{appSlug}/oauth/exchange: the session body, every row of docs/auth-service.md's error
 * table for the exchange, one-time code lifetime and the 50-way redemption race. Codes of users
 * and apps disabled or deleted since they were issued are in oauth-exchange-disabled.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect } from 'vitest';
import { api } from '../helpers/api';
import { metadata } from '../helpers/connections';
import { objectOf } from '../helpers/durable-objects';
import {
  asClient,
  createTestAuthApp,
  githubAccount,
  githubSignIn,
  INVALID_GRANT,
  oneTimeCode,
  paramsOf,
  pkcePair,
  type Session,
} from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';
import type { ExtraWorker } from '../helpers/worker';

const exchange = (worker: ExtraWorker, slug: string, body: unknown, client?: string) =>
  api(worker.baseUrl).post(`/v1/${slug}/oauth/exchange`, body, { headers: asClient(client) });

describe('code exchange', () => {
  it('returns the session body: a verifiable ES256 access token for 900 s, a refresh token and the user', async ({
    standIn,
    worker,
    app,
  }) => {
    const account = githubAccount();
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const res = await exchange(worker, app.slug, { code, code_verifier: verifier });
    expect(res.status, res.text).toBe(200);
    const session = res.body as unknown as Session;
    expect(session.token_type).toBe('Bearer');
    expect(session.expires_in).toBe(900);
    expect(session.refresh_token).toMatch(/^tth_rt_/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(session.user).toEqual({
      id: expect.any(String),
      email: account.emails[1]?.email,
      email_verified: true,
      name: 'Git Hubber',
      avatar_url: 'https://avatars.example/1',
      created_at: expect.stringMatching(/Z$/),
      providers: ['github'],
    });
    const jwks = await api(worker.baseUrl).get<{ keys: object[] }>(`/v1/${app.slug}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(JSON.stringify(jwks.body)).not.toMatch(/"d"/);
    const { payload, protectedHeader } = await jwtVerify(
      session.access_token,
      createLocalJWKSet(jwks.body as { keys: [] }),
      { issuer: `${worker.baseUrl}/v1/${app.slug}`, audience: app.slug },
    );
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.sub).toBe(session.user.id);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(900);
  });

  // One key signed every app's tokens, so a relying party that forgot `aud` accepted another tenant's.
  it("each app signs with its own key: app A's access token does not verify with app B's JWKS", async ({
    standIn,
    worker,
    app,
  }) => {
    const other = await createTestAuthApp(worker.baseUrl);
    const sessionOf = async (slug: string) => {
      const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, slug);
      const res = await exchange(worker, slug, { code, code_verifier: verifier });
      expect(res.status, res.text).toBe(200);
      return res.body as unknown as Session;
    };
    const jwksOf = async (slug: string) =>
      (await api(worker.baseUrl).get<{ keys: Array<{ kid: string }> }>(`/v1/${slug}/.well-known/jwks.json`))
        .body;
    const [mine, theirs] = [await jwksOf(app.slug), await jwksOf(other.slug)];
    // Each publishes its current key and its next one (contract §15), none of the other's.
    expect(mine.keys).toHaveLength(2);
    expect(theirs.keys).toHaveLength(2);
    expect(mine.keys.map((k) => k.kid)).not.toContain(theirs.keys[0]?.kid);
    expect(mine.keys.map((k) => k.kid)).not.toContain(theirs.keys[1]?.kid);
    const token = (await sessionOf(app.slug)).access_token;
    await expect(jwtVerify(token, createLocalJWKSet(mine as never))).resolves.toBeTruthy();
    await expect(jwtVerify(token, createLocalJWKSet(theirs as never))).rejects.toThrow();
    // The other app's own tokens verify with its own keys (and never with this app's).
    const otherToken = (await sessionOf(other.slug)).access_token;
    await expect(jwtVerify(otherToken, createLocalJWKSet(theirs as never))).resolves.toBeTruthy();
    await expect(jwtVerify(otherToken, createLocalJWKSet(mine as never))).rejects.toThrow();
  });

  it('an app made before apps had keys of their own gets one on first use; its tokens, refreshed ones too, verify with its JWKS', async ({
    standIn,
    worker,
  }) => {
    const legacy = await createTestAuthApp(worker.baseUrl);
    await metadata(`UPDATE auth_apps SET signing_keys = '[]'::jsonb WHERE id = $1`, [legacy.id]);
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, legacy.slug);
    const first = await exchange(worker, legacy.slug, { code, code_verifier: verifier });
    expect(first.status, first.text).toBe(200);
    const refreshed = await api(worker.baseUrl).post<Session>(
      `/v1/${legacy.slug}/oauth/refresh`,
      { refresh_token: (first.body as unknown as Session).refresh_token },
      { headers: asClient() },
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    const jwks = await api(worker.baseUrl).get<{ keys: Array<{ kid: string }> }>(
      `/v1/${legacy.slug}/.well-known/jwks.json`,
    );
    // Its current key and the next one it publishes from then on (contract §15).
    expect(jwks.body.keys).toHaveLength(2);
    for (const token of [(first.body as unknown as Session).access_token, refreshed.body.access_token]) {
      const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks.body as never));
      expect(protectedHeader.kid).toBe(jwks.body.keys[0]?.kid);
    }
  });

  it('400 invalid_grant: unknown code', async ({ worker, app }) => {
    const { verifier } = await pkcePair();
    const res = await exchange(worker, app.slug, {
      code: randomBytes(32).toString('base64url'),
      code_verifier: verifier,
    });
    expect([res.status, res.body]).toEqual([400, INVALID_GRANT]);
  });

  it('404 unknown app: an exchange for an app that does not exist, as on every auth route', async ({
    worker,
  }) => {
    const { verifier } = await pkcePair();
    const res = await exchange(worker, `no-such-app-${randomBytes(4).toString('hex')}`, {
      code: randomBytes(32).toString('base64url'),
      code_verifier: verifier,
    });
    expect([res.status, res.body]).toEqual([404, { error: 'unknown app' }]);
  });

  it('400 invalid_grant: reused code', async ({ standIn, worker, app }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    expect((await exchange(worker, app.slug, { code, code_verifier: verifier })).status).toBe(200);
    const again = await exchange(worker, app.slug, { code, code_verifier: verifier });
    expect([again.status, again.body]).toEqual([400, INVALID_GRANT]);
  });

  it('400 invalid_grant: wrong verifier, and the wrong verifier burns the code', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const wrong = await exchange(worker, app.slug, { code, code_verifier: (await pkcePair()).verifier });
    expect([wrong.status, wrong.body]).toEqual([400, INVALID_GRANT]);
    const right = await exchange(worker, app.slug, { code, code_verifier: verifier });
    expect([right.status, right.body]).toEqual([400, INVALID_GRANT]);
  });

  it('400 invalid_grant: the plain verifier (the challenge itself) is a wrong verifier', async ({
    standIn,
    worker,
    app,
  }) => {
    const { verifier, challenge } = await pkcePair();
    const location = await githubSignIn(worker.baseUrl, standIn, app.slug, {
      redirect_uri: 'myapp://auth',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = paramsOf(location).get('code') as string;
    const res = await exchange(worker, app.slug, { code, code_verifier: challenge });
    expect([res.status, res.body]).toEqual([400, INVALID_GRANT]);
    expect((await exchange(worker, app.slug, { code, code_verifier: verifier })).status).toBe(400);
  });

  it('400 invalid_grant: a code of another app', async ({ standIn, worker, app }) => {
    const other = await createTestAuthApp(worker.baseUrl);
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const res = await exchange(worker, other.slug, { code, code_verifier: verifier });
    expect([res.status, res.body]).toEqual([400, INVALID_GRANT]);
  });

  it('400 invalid_grant: an expired code (issued with its lifetime already over)', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code: first, verifier: firstVerifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const ok = await exchange(worker, app.slug, { code: first, code_verifier: firstVerifier });
    const userId = (ok.body as unknown as Session).user.id as string;
    // Plant a code record in the Durable Object exactly as issueCode would, but already expired.
    const { verifier, challenge } = await pkcePair();
    const code = randomBytes(32).toString('base64url');
    const hash = createHash('sha256').update(code).digest('hex');
    const stub = await objectOf(worker.mf, 'ONE_TIME_CODES', `codes:${app.slug}`);
    const record = { appId: app.id, userId, challenge, redirectUri: 'myapp://auth' };
    await stub.issue(hash, JSON.stringify(record), -1);
    const res = await exchange(worker, app.slug, { code, code_verifier: verifier });
    expect([res.status, res.body]).toEqual([400, INVALID_GRANT]);
  });

  it('a verifier outside the rules (length 43 to 128, its alphabet) is a wrong verifier: invalid_grant, code burnt', async ({
    standIn,
    worker,
    app,
  }) => {
    for (const wrong of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}!`, 'too-short']) {
      const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
      const res = await exchange(worker, app.slug, { code, code_verifier: wrong });
      expect([res.status, res.body]).toEqual([400, INVALID_GRANT]);
      const retry = await exchange(worker, app.slug, { code, code_verifier: verifier });
      expect([retry.status, retry.body]).toEqual([400, INVALID_GRANT]);
    }
  });

  it('a redirect_uri other than the one the code was sent to is invalid_grant', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const res = await exchange(worker, app.slug, {
      code,
      code_verifier: verifier,
      redirect_uri: 'https://app.example.com',
    });
    expect([res.status, res.body]).toEqual([400, INVALID_GRANT]);
  });

  it('a body that is not JSON is 400 with a message and no code (the table names none for it)', async ({
    worker,
    app,
  }) => {
    const raw = await api(worker.baseUrl).post(`/v1/${app.slug}/oauth/exchange`, undefined, {
      rawBody: '{not json',
      headers: asClient(),
    });
    expect(raw.status).toBe(400);
    expect(Object.keys(raw.body as object)).toEqual(['error']);
    expect(typeof (raw.body as { error: unknown }).error).toBe('string');
  });

  it('a code sent without its verifier is invalid_grant and burnt, as with a wrong verifier', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const missing = await exchange(worker, app.slug, { code });
    expect([missing.status, missing.body]).toEqual([400, INVALID_GRANT]);
    const late = await exchange(worker, app.slug, { code, code_verifier: verifier });
    expect([late.status, late.body]).toEqual([400, INVALID_GRANT]);
    const noCode = await exchange(worker, app.slug, { code_verifier: verifier });
    expect([noCode.status, noCode.body]).toEqual([400, INVALID_GRANT]);
  });

  it('a body sent without a Content-Length (chunked) is exchanged all the same', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const bytes = new TextEncoder().encode(JSON.stringify({ code, code_verifier: verifier }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const res = await fetch(`${worker.baseUrl}/v1/${app.slug}/oauth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asClient() },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as Session).refresh_token).toMatch(/^tth_rt_/);
    expect((await exchange(worker, app.slug, { code, code_verifier: verifier })).status).toBe(400);
  });

  it('an exchange refused by the rate limit (429) leaves its code usable', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const client = `spent-${code.slice(0, 8)}`;
    const unknown = randomBytes(32).toString('base64url');
    for (let i = 0; i < 20; i++) {
      expect(
        (await exchange(worker, app.slug, { code: unknown, code_verifier: verifier }, client)).status,
      ).toBe(400);
    }
    const refused = await exchange(worker, app.slug, { code, code_verifier: verifier }, client);
    expect(refused.status).toBe(429);
    expect((await exchange(worker, app.slug, { code, code_verifier: verifier })).status).toBe(200);
  });

  it('50 parallel exchanges of one code give exactly one 200', async ({ standIn, worker, app }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        exchange(worker, app.slug, { code, code_verifier: verifier }, `race-${i}-${code.slice(0, 6)}`),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(49);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body).toEqual(INVALID_GRANT);
  });
});
