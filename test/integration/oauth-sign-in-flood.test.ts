/**
 * A flood of browser sign-in starts from many clients never pushes a sign-in in progress out:
 * past the app's cap (SIGN_IN_PENDING_PER_APP) new starts are 503 with Retry-After, and the
 * person's own sign-in still finishes in the browser that started it.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  githubAccount,
  newClient,
  paramsOf,
  pkceStart,
  startSignIn,
} from '../helpers/oauth';
import { oauthTestWith } from '../helpers/oauth-fixtures';

/** One pending sign-in per state object (16 an app), so a short flood reaches the cap. */
const it = oauthTestWith({ workerEnv: { SIGN_IN_PENDING_PER_APP: '16' } });

describe('sign-ins in progress survive a flood of starts', () => {
  it('starts from many other clients fill the app’s cap and are 503 past it; the person’s own sign-in still finishes', async ({
    worker,
    standIn,
  }) => {
    const app = await createTestAuthApp(worker.baseUrl);
    const { query, verifier } = await pkceStart();
    const mine = await startSignIn(worker.baseUrl, app.slug, 'github', query);
    const flood = [];
    for (let i = 0; i < 48; i++) {
      flood.push(
        await api(worker.baseUrl).get(`/v1/${app.slug}/auth/github?${new URLSearchParams(query)}`, {
          headers: asClient(newClient()),
        }),
      );
    }
    const started = flood.filter((res) => res.status === 302);
    const refused = flood.filter((res) => res.status === 503);
    // 16 objects, one pending sign-in each; the person's holds one of them.
    expect(started.length).toBeLessThanOrEqual(15);
    expect(started.length + refused.length).toBe(flood.length);
    expect(refused.length).toBeGreaterThanOrEqual(flood.length - 15);
    for (const res of refused) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.body).toEqual({
        error: 'too many sign-ins are in progress for this app; try again shortly',
      });
    }
    const code = `gh-${randomBytes(6).toString('hex')}`;
    standIn.githubCode(code, githubAccount());
    const back = await api(worker.baseUrl).get(
      `/v1/${app.slug}/auth/github/callback?${new URLSearchParams({ code, state: mine.state })}`,
      { headers: { cookie: mine.cookie } },
    );
    expect(back.status, back.text).toBe(302);
    const oneTime = paramsOf(back.headers.get('location') ?? '').get('code');
    const exchanged = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/exchange`,
      { code: oneTime, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(exchanged.status, exchanged.text).toBe(200);
  });
});
