/**
 * Dashboard sessions: they die with the account token that minted them, are listed
 * without their tokens, and are ended one by one by their own account only.
 */
import { describe, expect, it } from 'vitest';
import { api, createAccount } from '../helpers/api';

describe('dashboard sessions', () => {
  type Listed = {
    sessions: Array<{ id: string; current: boolean; minted_by: string | null; expires_at: string }>;
  };

  it('revoking the account token that minted a session ends that session; a session of another token lives on', async () => {
    const owner = await createAccount();
    const as = api().as(owner.token);
    const minter = await as.post<{ id: string; token: string }>('/api/v1/account/tokens', { name: 'minter' });
    const doomed = await api().as(minter.body.token).post<{ token: string }>('/api/v1/account/sessions');
    const kept = await as.post<{ token: string }>('/api/v1/account/sessions');
    expect([doomed.status, kept.status]).toEqual([201, 201]);
    expect((await api().as(doomed.body.token).get('/api/v1/account')).status).toBe(200);
    expect((await as.delete(`/api/v1/account/tokens/${minter.body.id}`)).status).toBe(200);
    expect((await api().as(doomed.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await api().as(kept.body.token).get('/api/v1/account')).status).toBe(200);
  });

  it('GET /account/sessions lists live sessions without their tokens; DELETE ends one (200, then 404)', async () => {
    const owner = await createAccount();
    const as = api().as(owner.token);
    const first = await as.post<{ token: string }>('/api/v1/account/sessions');
    const second = await as.post<{ token: string }>('/api/v1/account/sessions');
    const viaSession = api().as(first.body.token);
    const listed = await viaSession.get<Listed>('/api/v1/account/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(first.body.token);
    expect(JSON.stringify(listed.body)).not.toContain(second.body.token);
    expect(listed.body.sessions.map((x) => x.current)).toEqual([true, false]);
    const other = listed.body.sessions[1]?.id as string;
    const ended = await viaSession.delete(`/api/v1/account/sessions/${other}`);
    expect([ended.status, ended.body]).toEqual([200, { revoked: true }]);
    expect((await api().as(second.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await viaSession.delete(`/api/v1/account/sessions/${other}`)).status).toBe(404);
    expect((await as.get<Listed>('/api/v1/account/sessions')).body.sessions.map((x) => x.id)).toEqual([
      listed.body.sessions[0]?.id,
    ]);
    // Another account cannot end it, nor learn that it exists.
    const stranger = await createAccount();
    const mine = listed.body.sessions[0]?.id as string;
    expect((await api().as(stranger.token).delete(`/api/v1/account/sessions/${mine}`)).status).toBe(404);
    expect((await viaSession.get('/api/v1/account')).status).toBe(200);
  });
});
