/**
 * MongoDB named principals (contract §7) through the API on a Worker whose admin side is the
 * Atlas stand-in, which checks every request against Atlas's documented CloudDatabaseUser shape
 * and refuses any other field but MongoDB's `authenticationRestrictions` (contract §7's
 * clientSource allowlist), which it can refuse too, as Atlas's public reference implies. A login is judged by the stand-in (the user exists, the password
 * is its own, its deleteAfterDate has not passed): it keeps no sessions, so an open session's
 * end after revoke is Atlas's and MongoDB's to keep (docs/connections.md, named principals).
 */
import { describe, expect, it } from 'vitest';
import { ATLAS_MEDIA_TYPE } from '../../functions/adapters/mongodb-admin';
import { createDatabase, metadata } from '../helpers/connections';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';
import { triggerScheduled } from '../helpers/worker';

type Shown = {
  id: string;
  level: string;
  allowed_sources: string[];
  expires_at: string | null;
  username: string;
  password: string;
  url: string;
};

/** The request fields of Atlas's CloudDatabaseUser (Admin API v2, createDatabaseUser). */
const DOCUMENTED_FIELDS = new Set([
  'awsIAMType',
  'databaseName',
  'deleteAfterDate',
  'description',
  'groupId',
  'labels',
  'ldapAuthType',
  'oidcAuthType',
  'password',
  'roles',
  'scopes',
  'username',
  'x509Type',
]);

const world = connectionsWorldForFile();
const s = seededForFile(0, () => world.worker.baseUrl);
const hourAhead = () => new Date(Date.now() + 3600_000).toISOString();

async function mongo() {
  const db = await createDatabase(s.as, s.project.id, 'mongodb');
  const base = `/api/v1/projects/${s.project.id}/databases/${db.id}`;
  const creds = await s.as.get<{ url: string }>(`${base}/credentials`);
  expect(creds.status, creds.text).toBe(200);
  return { base, physical: new URL(creds.body.url).pathname.slice(1) };
}

async function principal(base: string, body: Record<string, unknown>): Promise<Shown> {
  const res = await s.as.post<Shown>(`${base}/principals`, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The Atlas requests about `username` since `from` (an index into the stand-in's log). */
const requestsFor = (username: string, from = 0) =>
  world.atlas.requests
    .slice(from)
    .filter(
      (r) =>
        r.path.endsWith(`/${username}`) ||
        (r.body as { username?: string } | undefined)?.username === username,
    );

describe('MongoDB principals through the Atlas Admin API', () => {
  it('create at each level sends the documented databaseUsers shape: read or readWrite on its one database', async () => {
    const { base, physical } = await mongo();
    const ro = await principal(base, { name: 'bi', level: 'read-only' });
    const rw = await principal(base, { name: 'etl', level: 'connect', expires_at: hourAhead() });
    for (const [p, roleName] of [
      [ro, 'read'],
      [rw, 'readWrite'],
    ] as const) {
      expect(p.username).toMatch(/^c_[a-z0-9]{8}$/);
      expect(new URL(p.url).username).toBe(p.username);
      expect(world.atlas.authenticates(p.username, p.password)).toBe(true);
      const [create] = requestsFor(p.username);
      expect(create?.method).toBe('POST');
      expect(create?.path).toMatch(/\/api\/atlas\/v2\/groups\/[0-9a-f]{24}\/databaseUsers$/);
      const body = create?.body as Record<string, unknown>;
      expect(Object.keys(body).filter((k) => !DOCUMENTED_FIELDS.has(k))).toEqual([]);
      expect(body).toMatchObject({
        databaseName: 'admin',
        username: p.username,
        password: p.password,
        roles: [{ roleName, databaseName: physical }],
      });
    }
    const createBody = (p: Shown) => requestsFor(p.username)[0]?.body as Record<string, unknown> | undefined;
    expect(createBody(ro)).not.toHaveProperty('deleteAfterDate');
    expect(createBody(rw)?.deleteAfterDate).toBe(rw.expires_at);
    expect(ATLAS_MEDIA_TYPE).toBe('application/vnd.atlas.2023-01-01+json');
  });

  it('rotate PATCHes only the password: the new one logs in, the old one is refused, the username stays', async () => {
    const { base } = await mongo();
    const p = await principal(base, { name: 'ci', level: 'connect' });
    const mark = world.atlas.requests.length;
    const res = await s.as.post<Shown>(`${base}/principals/${p.id}/rotate`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.username).toBe(p.username);
    expect(res.body.password).not.toBe(p.password);
    expect(requestsFor(p.username, mark)).toEqual([
      expect.objectContaining({
        method: 'PATCH',
        path: expect.stringMatching(new RegExp(`/databaseUsers/admin/${p.username}$`)),
        body: { password: res.body.password },
      }),
    ]);
    expect(world.atlas.authenticates(p.username, res.body.password)).toBe(true);
    expect(world.atlas.authenticates(p.username, p.password)).toBe(false);
  });

  it('revoke DELETEs the database user, so no login works; a second DELETE is revoked:false', async () => {
    const { base } = await mongo();
    const p = await principal(base, { name: 'partner', level: 'read-only' });
    const mark = world.atlas.requests.length;
    const res = await s.as.delete<{ revoked: boolean }>(`${base}/principals/${p.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ revoked: true });
    expect(requestsFor(p.username, mark).map((r) => r.method)).toEqual(['DELETE']);
    expect(world.atlas.user(p.username)).toBeUndefined();
    expect(world.atlas.authenticates(p.username, p.password)).toBe(false);
    expect((await s.as.delete(`${base}/principals/${p.id}`)).body).toEqual({ revoked: false });
    const list = await s.as.get<{ principals: unknown[] }>(`${base}/principals`);
    expect(list.body.principals).toEqual([]);
  });

  it('after its deleteAfterDate Atlas refuses the login, the listing says expired, and the reconciler removes it', async () => {
    const { base } = await mongo();
    const p = await principal(base, { name: 'temp', level: 'read-only', expires_at: hourAhead() });
    expect(world.atlas.user(p.username)?.deleteAfterDate).toBe(p.expires_at);
    // The hour passes: Atlas's deleteAfterDate and the record both move into the past.
    const past = new Date(Date.now() - 1000).toISOString();
    const stored = world.atlas.user(p.username);
    if (stored) stored.deleteAfterDate = past;
    await metadata('update principals set expires_at = $2 where id = $1', [p.id, past]);
    expect(world.atlas.authenticates(p.username, p.password)).toBe(false);
    const listed = await s.as.get<{ principals: Array<{ id: string; expired: boolean }> }>(
      `${base}/principals`,
    );
    expect(listed.body.principals).toEqual([expect.objectContaining({ id: p.id, expired: true })]);
    await triggerScheduled(world.worker.baseUrl);
    expect(world.atlas.user(p.username)).toBeUndefined();
    const after = await s.as.get<{ principals: unknown[] }>(`${base}/principals`);
    expect(after.body.principals).toEqual([]);
  });

  it('an allowlist is sent as authenticationRestrictions.clientSource: a login from outside it is refused, from inside it works, a rotation keeps it; an empty one is any source', async () => {
    const { base } = await mongo();
    const p = await principal(base, {
      name: 'pinned',
      level: 'read-only',
      allowed_sources: ['203.0.113.7', '2001:db8::/32'],
    });
    expect(p.allowed_sources).toEqual(['203.0.113.7/32', '2001:db8::/32']);
    const [create] = requestsFor(p.username);
    expect((create?.body as Record<string, unknown> | undefined)?.authenticationRestrictions).toEqual([
      { clientSource: ['203.0.113.7/32', '2001:db8::/32'] },
    ]);
    expect(world.atlas.authenticates(p.username, p.password, '203.0.113.7')).toBe(true);
    expect(world.atlas.authenticates(p.username, p.password, '2001:db8:1::5')).toBe(true);
    expect(world.atlas.authenticates(p.username, p.password, '203.0.113.8')).toBe(false);
    expect(world.atlas.authenticates(p.username, p.password, '127.0.0.1')).toBe(false);
    const rotated = await s.as.post<Shown>(`${base}/principals/${p.id}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(world.atlas.authenticates(p.username, rotated.body.password, '203.0.113.7')).toBe(true);
    expect(world.atlas.authenticates(p.username, rotated.body.password, '198.51.100.1')).toBe(false);
    const listed = await s.as.get<{ principals: Array<{ id: string; allowed_sources: string[] }> }>(
      `${base}/principals`,
    );
    expect(listed.body.principals).toEqual([
      expect.objectContaining({ id: p.id, allowed_sources: ['203.0.113.7/32', '2001:db8::/32'] }),
    ]);
    const open = await principal(base, { name: 'open', level: 'read-only', allowed_sources: [] });
    expect(open.allowed_sources).toEqual([]);
    expect(requestsFor(open.username)[0]?.body).not.toHaveProperty('authenticationRestrictions');
    expect(world.atlas.authenticates(open.username, open.password, '198.51.100.1')).toBe(true);
  });

  it("an admin API that refuses authenticationRestrictions (as Atlas's public reference implies) makes an allowlist 400 naming why, with nothing made", async () => {
    const { base } = await mongo();
    world.atlas.acceptsAuthenticationRestrictions = false;
    try {
      const mark = world.atlas.requests.length;
      const res = await s.as.post<{ error: { code: string; message: string; field?: string } }>(
        `${base}/principals`,
        { name: 'pinned', level: 'read-only', allowed_sources: ['203.0.113.0/24'] },
      );
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
      expect(res.body.error.message).toMatch(/^allowed_sources: .*authenticationRestrictions/);
      const tried = world.atlas.requests.slice(mark).filter((r) => r.method === 'POST');
      expect(tried.length).toBeGreaterThan(0);
      for (const r of tried)
        expect(world.atlas.user((r.body as { username: string }).username)).toBeUndefined();
      expect((await s.as.get<{ principals: unknown[] }>(`${base}/principals`)).body.principals).toEqual([]);
      const open = await principal(base, { name: 'pinned', level: 'read-only' });
      expect(world.atlas.authenticates(open.username, open.password)).toBe(true);
    } finally {
      world.atlas.acceptsAuthenticationRestrictions = true;
    }
  });
});
