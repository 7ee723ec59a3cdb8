/**
 * A leaked token cannot leave descendants behind (issue 38, docs/contract.md §3): every token
 * records the token or session that minted it, and `DELETE /api/v1/account/tokens/:id?cascade=true`
 * revokes it and everything minted from it, transitively; without `cascade` only the token and
 * the sessions it opened go, as before. Operator-made account tokens expire after 90 days.
 */
import { describe, expect, it } from 'vitest';
import { api, createAccount } from '../helpers/api';

const DAY = 24 * 60 * 60 * 1000;

type Made = { id: string; token: string; created_at: string; expires_at: string };

/** Mints a personal token with `parent` (a token or session value). */
async function mint(parent: string, name: string): Promise<Made> {
  const res = await api().as(parent).post<Made>('/api/v1/account/tokens', { name });
  expect(res.status, `mint ${name}`).toBe(201);
  return res.body;
}

async function session(parent: string): Promise<string> {
  const res = await api().as(parent).post<{ token: string }>('/api/v1/account/sessions');
  expect(res.status).toBe(201);
  return res.body.token;
}

const works = async (token: string) => (await api().as(token).get('/api/v1/account')).status;

describe('a token minted by a leaked token', () => {
  it('does not survive a cascade revoke of the leaked one (tokens and sessions, transitively)', async () => {
    const owner = await createAccount();
    const leaked = await mint(owner.token, 'leaked');
    const child = await mint(leaked.token, 'child');
    const grandchild = await mint(child.token, 'grandchild');
    const leakedSession = await session(leaked.token);
    const viaSession = await mint(leakedSession, 'via-session');
    const sibling = await mint(owner.token, 'sibling');
    for (const t of [leaked.token, child.token, grandchild.token, leakedSession, viaSession.token]) {
      expect(await works(t)).toBe(200);
    }

    const revoked = await api().as(owner.token).delete(`/api/v1/account/tokens/${leaked.id}?cascade=true`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: true });
    for (const t of [leaked.token, child.token, grandchild.token, leakedSession, viaSession.token]) {
      expect(await works(t)).toBe(401);
    }
    // The account's other tokens, and the one that minted the leaked token, are untouched.
    expect(await works(owner.token)).toBe(200);
    expect(await works(sibling.token)).toBe(200);
    const events = await api()
      .as(owner.token)
      .get<{ events: Array<{ action: string; target: { id: string }; details: Record<string, unknown> }> }>(
        '/api/v1/account/activity?limit=20',
      );
    const event = events.body.events.find((e) => e.action === 'token.revoke' && e.target.id === leaked.id);
    expect(event?.details).toMatchObject({ cascade: true });
  });

  it('survives a revoke without cascade, as before (only the sessions the token opened go)', async () => {
    const owner = await createAccount();
    const parent = await mint(owner.token, 'parent');
    const child = await mint(parent.token, 'child');
    const parentSession = await session(parent.token);
    expect((await api().as(owner.token).delete(`/api/v1/account/tokens/${parent.id}`)).status).toBe(200);
    expect(await works(parent.token)).toBe(401);
    expect(await works(parentSession)).toBe(401);
    expect(await works(child.token)).toBe(200);
    // A cascade later still reaches what the revoked token minted.
    expect(
      (await api().as(owner.token).delete(`/api/v1/account/tokens/${parent.id}?cascade=true`)).status,
    ).toBe(200);
    expect(await works(child.token)).toBe(401);
  });

  it("cannot reach another account's tokens; cascade must be true or false", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const theirs = await mint(other.token, 'theirs');
    expect(
      (await api().as(owner.token).delete(`/api/v1/account/tokens/${theirs.id}?cascade=true`)).status,
    ).toBe(404);
    expect(await works(theirs.token)).toBe(200);
    const bad = await api().as(owner.token).delete(`/api/v1/account/tokens/${theirs.id}?cascade=yes`);
    expect(bad.status).toBe(400);
  });
});

describe('operator-made account tokens', () => {
  it('expire after 90 days instead of never', async () => {
    const owner = await createAccount();
    const listed = await api()
      .as(owner.token)
      .get<{ tokens: Array<{ name: string; created_at: string; expires_at: string | null }> }>(
        '/api/v1/account/tokens',
      );
    const initial = listed.body.tokens.find((t) => t.name === 'initial');
    expect(initial?.expires_at).not.toBeNull();
    expect(
      Math.round(
        (Date.parse(initial?.expires_at as string) - Date.parse(initial?.created_at as string)) / DAY,
      ),
    ).toBe(90);
  });
});
