/**
 * POST /v1/{appSlug}/oauth/exchange of a code whose user or app changed since it was issued:
 * a disabled user or app is refused (403), enabling again lets only new codes through, a
 * deleted user's code is invalid_grant.
 */
import { describe, expect } from 'vitest';
import { api } from '../helpers/api';
import {
  asClient,
  createTestAuthApp,
  disableNewestUser,
  githubAccount,
  INVALID_GRANT,
  oneTimeCode,
  type Session,
} from '../helpers/oauth';
import { oauthTest as it, type OAuthFixtures } from '../helpers/oauth-fixtures';
import type { ExtraWorker } from '../helpers/worker';

const exchange = (worker: ExtraWorker, slug: string, body: unknown, client?: string) =>
  api(worker.baseUrl).post(`/v1/${slug}/oauth/exchange`, body, { headers: asClient(client) });

describe('code exchange', () => {
  it('403 Account is disabled: checked at exchange time', async ({ standIn, worker, app }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    // The newest user is the one this code stands for.
    await disableNewestUser(app);
    const res = await exchange(worker, app.slug, { code, code_verifier: verifier });
    expect([res.status, res.body]).toEqual([403, { error: 'Account is disabled' }]);
  });

  /** A new GitHub user signed in once: its account (for more codes), id and admin path. */
  async function signedInUser({ standIn, worker, app }: Pick<OAuthFixtures, 'standIn' | 'worker' | 'app'>) {
    const account = githubAccount();
    const first = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const session = await exchange(worker, app.slug, { code: first.code, code_verifier: first.verifier });
    const userId = (session.body as unknown as Session).user.id as string;
    const userPath = `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${userId}`;
    return { account, userId, userPath };
  }

  it('enabling the user again lets their next code through', async ({ standIn, worker, app }) => {
    const { account, userId, userPath } = await signedInUser({ standIn, worker, app });
    const pending = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    expect((await app.admin.patch(userPath, { disabled: true })).status).toBe(200);
    expect(
      (await exchange(worker, app.slug, { code: pending.code, code_verifier: pending.verifier })).status,
    ).toBe(403);
    expect((await app.admin.patch(userPath, { disabled: false })).status).toBe(200);
    const next = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const res = await exchange(worker, app.slug, { code: next.code, code_verifier: next.verifier });
    expect(res.status, res.text).toBe(200);
    expect((res.body as unknown as Session).user.id).toBe(userId);
  });

  it('a code issued before a disable stays refused once the user is enabled again; new codes give working sessions', async ({
    standIn,
    worker,
    app,
  }) => {
    const { account, userPath } = await signedInUser({ standIn, worker, app });
    const refresh = (token: string) =>
      api(worker.baseUrl).post(`/v1/${app.slug}/oauth/refresh`, { refresh_token: token });

    // Enabling a user who is not disabled touches no code.
    const untouched = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    expect((await app.admin.patch(userPath, { disabled: false })).status).toBe(200);
    const kept = await exchange(worker, app.slug, {
      code: untouched.code,
      code_verifier: untouched.verifier,
    });
    expect(kept.status, kept.text).toBe(200);

    const before = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    expect((await app.admin.patch(userPath, { disabled: true })).status).toBe(200);
    expect((await app.admin.patch(userPath, { disabled: false })).status).toBe(200);
    // Its refresh token died with the disable: a session from it would be half dead.
    const stale = await exchange(worker, app.slug, { code: before.code, code_verifier: before.verifier });
    expect([stale.status, stale.body]).toEqual([400, INVALID_GRANT]);

    const after = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const fresh = await exchange(worker, app.slug, { code: after.code, code_verifier: after.verifier });
    expect(fresh.status, fresh.text).toBe(200);
    expect((await refresh((fresh.body as unknown as Session).refresh_token)).status).toBe(200);
  });

  it('400 invalid_grant: a code of a user deleted since it was issued', async ({ standIn, worker, app }) => {
    const { account, userId } = await signedInUser({ standIn, worker, app });
    const pending = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const gone = await app.admin.delete(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${userId}`,
    );
    expect(gone.status).toBe(200);
    const res = await exchange(worker, app.slug, { code: pending.code, code_verifier: pending.verifier });
    expect([res.status, res.body]).toEqual([400, INVALID_GRANT]);
  });

  it('403: a code of an app disabled since it was issued; enabling the app again lets new codes through', async ({
    standIn,
    worker,
  }) => {
    const own = await createTestAuthApp(worker.baseUrl);
    const pending = await oneTimeCode(worker.baseUrl, standIn, own.slug);
    const appPath = `/api/v1/projects/${own.project.id}/auth-apps/${own.id}`;
    expect((await own.admin.patch(appPath, { enabled: false })).status).toBe(200);
    const res = await exchange(worker, own.slug, { code: pending.code, code_verifier: pending.verifier });
    expect([res.status, res.body]).toEqual([403, { error: 'this app is disabled' }]);
    expect((await own.admin.patch(appPath, { enabled: true })).status).toBe(200);
    const next = await oneTimeCode(worker.baseUrl, standIn, own.slug);
    expect((await exchange(worker, own.slug, { code: next.code, code_verifier: next.verifier })).status).toBe(
      200,
    );
  });
});
