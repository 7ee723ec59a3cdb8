/**
 * Personal tokens (contract §10): created by a token or a console session with a name, an expiry
 * and optionally read-only; listed without values with `last_used_at`; an expired one is 401, a
 * read-only one 403 on every write; revoked at once. The operator's initial token expires after 90
 * days too. The CLI's `tether tokens` drives the same routes.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject } from '../helpers/api';
import { cliHome, runCli } from '../helpers/cli';

type Listed = {
  tokens: Array<{
    id: string;
    name: string;
    created_at: string;
    expires_at: string | null;
    last_used_at: string | null;
    read_only: boolean;
  }>;
};
type Made = Listed['tokens'][number] & { token: string };

let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('metadataUrl') });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
});

const DAY = 24 * 60 * 60 * 1000;

describe('personal tokens', () => {
  it('a token is created with a name, a 90-day default expiry, shown once and listed without its value', async () => {
    const owner = await createAccount();
    const made = await api().as(owner.token).post<Made>('/api/v1/account/tokens', { name: 'laptop' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'laptop', read_only: false });
    expect(made.body.token).toMatch(/^tth_at_/);
    const lifetime = Date.parse(made.body.expires_at as string) - Date.parse(made.body.created_at);
    expect(Math.round(lifetime / DAY)).toBe(90);
    const listed = await api().as(owner.token).get<Listed>('/api/v1/account/tokens');
    expect(listed.status).toBe(200);
    expect(listed.body.tokens.map((t) => t.name)).toContain('laptop');
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    // The operator's initial token expires too, after the same 90 days (issue 38: it never did).
    const initial = listed.body.tokens.find((t) => t.name === 'initial');
    expect(
      Math.round(
        (Date.parse(initial?.expires_at as string) - Date.parse(initial?.created_at as string)) / DAY,
      ),
    ).toBe(90);
  });

  it('a console session may create a token; expires_in_days outside 1..365 or no name is 400 with nothing made', async () => {
    const owner = await createAccount();
    const session = await api().as(owner.token).post<{ token: string }>('/api/v1/account/sessions');
    const viaSession = api().as(session.body.token);
    const made = await viaSession.post<Made>('/api/v1/account/tokens', { name: 'ci', expires_in_days: 365 });
    expect(made.status).toBe(201);
    for (const body of [
      { name: 'x', expires_in_days: 0 },
      { name: 'x', expires_in_days: 366 },
      { name: 'x', expires_in_days: 1.5 },
      {},
      { name: '' },
    ]) {
      expect((await viaSession.post('/api/v1/account/tokens', body)).status).toBe(400);
    }
    const listed = await viaSession.get<Listed>('/api/v1/account/tokens');
    expect(listed.body.tokens.map((t) => t.name).sort()).toEqual(['ci', 'initial']);
  });

  it('an expired token is 401', async () => {
    const owner = await createAccount();
    const made = await api()
      .as(owner.token)
      .post<Made>('/api/v1/account/tokens', { name: 'short', expires_in_days: 1 });
    expect((await api().as(made.body.token).get('/api/v1/account')).status).toBe(200);
    await db.query(`update account_tokens set expires_at = now() - interval '1 second' where id = $1`, [
      made.body.id,
    ]);
    expect((await api().as(made.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await api().as(made.body.token).post('/api/v1/projects', { name: 'nope' })).status).toBe(401);
  });

  it('a read-only token reads what its account may and gets 403 on every write, nothing changed', async () => {
    const owner = await createAccount();
    const project = await createProject(owner.token);
    const ro = await api()
      .as(owner.token)
      .post<Made>('/api/v1/account/tokens', { name: 'reader', read_only: true });
    expect(ro.body.read_only).toBe(true);
    const reader = api().as(ro.body.token);
    expect((await reader.get(`/api/v1/projects/${project.slug}`)).status).toBe(200);
    expect((await reader.get('/api/v1/projects')).status).toBe(200);
    const writes = [
      reader.post('/api/v1/projects', { name: 'ro-made' }),
      reader.post(`/api/v1/projects/${project.slug}/sites`, { slug: 'ro-site' }),
      reader.post('/api/v1/account/tokens', { name: 'escalate' }),
      reader.post('/api/v1/account/sessions'),
      reader.delete(`/api/v1/account/tokens/${ro.body.id}`),
    ];
    for (const res of await Promise.all(writes)) expect(res.status).toBe(403);
    const sites = await api()
      .as(owner.token)
      .get<{ sites: unknown[] }>(`/api/v1/projects/${project.slug}/sites`);
    expect(sites.body.sites).toHaveLength(0);
    const names = (await api().as(owner.token).get<Listed>('/api/v1/account/tokens')).body.tokens.map(
      (t) => t.name,
    );
    expect(names).not.toContain('escalate');
  });

  it('a revoked token is 401 at once and leaves the listing', async () => {
    const owner = await createAccount();
    const as = api().as(owner.token);
    const made = await as.post<Made>('/api/v1/account/tokens', { name: 'gone' });
    expect((await as.delete(`/api/v1/account/tokens/${made.body.id}`)).body).toEqual({ revoked: true });
    expect((await api().as(made.body.token).get('/api/v1/account')).status).toBe(401);
    expect((await as.get<Listed>('/api/v1/account/tokens')).body.tokens.map((t) => t.id)).not.toContain(
      made.body.id,
    );
    expect((await as.delete(`/api/v1/account/tokens/${made.body.id}`)).status).toBe(404);
  });

  it('last_used_at is null until the token is used, then moves when it is used again after an hour', async () => {
    const owner = await createAccount();
    const as = api().as(owner.token);
    const made = await as.post<Made>('/api/v1/account/tokens', { name: 'tracked' });
    const lastUsed = async () =>
      (await as.get<Listed>('/api/v1/account/tokens')).body.tokens.find((t) => t.id === made.body.id)
        ?.last_used_at;
    expect(await lastUsed()).toBeNull();
    expect((await api().as(made.body.token).get('/api/v1/account')).status).toBe(200);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    // Within the hour a use writes nothing more (the lookup stays a read).
    await api().as(made.body.token).get('/api/v1/projects');
    expect(await lastUsed()).toBe(first);
    await db.query(`update account_tokens set last_used_at = now() - interval '2 hours' where id = $1`, [
      made.body.id,
    ]);
    const before = Date.now();
    await api().as(made.body.token).get('/api/v1/projects');
    const moved = await lastUsed();
    expect(Date.parse(moved as string)).toBeGreaterThan(before - 60_000);
    expect(moved).not.toBe(first);
  });

  it('tether tokens create, ls and revoke', async () => {
    const owner = await createAccount();
    const home = await cliHome({ TETHER_API_URL: inject('baseUrl'), TETHER_TOKEN: owner.token });
    try {
      const made = await runCli(home, [
        'tokens',
        'create',
        'deploy-bot',
        '--expires',
        '30',
        '--read-only',
        '--json',
      ]);
      expect(made.code, made.stderr).toBe(0);
      const body = JSON.parse(made.stdout) as Made;
      expect(body).toMatchObject({ name: 'deploy-bot', read_only: true });
      const ls = await runCli(home, ['tokens']);
      expect(ls.stdout).toContain('deploy-bot');
      expect(ls.stdout).toContain('read-only');
      expect(ls.stdout).not.toContain(body.token);
      const bad = await runCli(home, ['tokens', 'create', 'x', '--expires', '400']);
      expect(bad.code).toBe(1);
      const revoked = await runCli(home, ['tokens', 'revoke', body.id, '--yes']);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect((await api().as(body.token).get('/api/v1/account')).status).toBe(401);
    } finally {
      await home.cleanup();
    }
  });
});
