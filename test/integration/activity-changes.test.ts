/**
 * One change of each kind through the API leaves exactly one event each in the Activity record,
 * naming the account that made it and the way in (`api`), and no secret anywhere: not a password,
 * key, token, URL with credentials, client secret or variable value any of these answers showed.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { allEvents, countByAction, expectNoSecret, secretsIn } from '../helpers/activity';
import { type ApiClient, api, createAccount, type TestAccount } from '../helpers/api';
import {
  createAuthApp,
  createBucket,
  createDatabase,
  type SeededProject,
  seedProject,
} from '../helpers/connections';

let p: SeededProject;
let as: ApiClient;
let owner: TestAccount;
const secrets: string[] = [];
const path = () => `/api/v1/projects/${p.project.id}`;

/** Sends a change, expects `status`, and keeps every string of its answer as a possible secret. */
async function change(
  method: 'post' | 'put' | 'patch' | 'delete',
  url: string,
  body?: unknown,
  status = 200,
) {
  const res = await as[method]<Record<string, unknown>>(`${path()}${url}`, body);
  expect(res.status, `${method} ${url}: ${res.text}`).toBe(status);
  secrets.push(...secretsIn(res.body));
  return res.body;
}

beforeAll(async () => {
  p = await seedProject(inject('baseUrl'), 2);
  as = p.as;
  owner = { id: '', email: '', token: p.token };
  const me = await as.get<{ id: string; email: string }>('/api/v1/account');
  owner = { ...owner, id: me.body.id, email: me.body.email };
});

describe('one change of each kind through the API', () => {
  it('records exactly one event each, by the account, via api, with no secret', async () => {
    const [a, b] = p.sites as [{ id: string; slug: string }, { id: string; slug: string }];
    const db = await createDatabase(as, p.project.id);
    const db2 = await createDatabase(as, p.project.id);
    const bucket = await createBucket(as, p.project.id);
    const app = await createAuthApp(as, p.project.id);
    await change(
      'post',
      `/sites/${a.id}/connections`,
      { kind: 'database', resource_id: db.id, level: 'read-only' },
      201,
    );
    await change('post', `/sites/${a.id}/connections`, { kind: 'database', resource_id: db2.id }, 201);
    const level = await as.put(`/api/v1/databases/${db.id}/sites`, {
      sites: [{ site_id: a.id, level: 'connect' }],
    });
    expect(level.status).toBe(200);
    await change('post', `/sites/${a.id}/connections/database/${db2.id}/promote`);
    await change('post', `/sites/${a.id}/connections/database/${db.id}/rotate`, undefined, 204);
    await change('delete', `/sites/${a.id}/connections/database/${db2.id}`);
    await change('post', `/databases/${db.id}/stop`);
    await change('post', `/databases/${db.id}/start`);
    await change('post', `/databases/${db.id}/credentials/rotate`);
    await change('post', `/buckets/${bucket.id}/credentials/rotate`);
    const principal = await change(
      'post',
      `/databases/${db.id}/principals`,
      { name: 'etl', level: 'read-only' },
      201,
    );
    await change('post', `/databases/${db.id}/principals/${principal.id}/rotate`);
    await change('delete', `/databases/${db.id}/principals/${principal.id}`);
    const value = 'value-that-is-secret-0123456789';
    secrets.push(value);
    await change('put', `/sites/${a.id}/env`, { vars: { API_SECRET: value } });
    const deploy = await change('post', `/sites/${a.id}/deploys`, {}, 201);
    await change('post', `/sites/${a.id}/deploys/${deploy.id}/rollback`, undefined, 201);
    const key = await change('post', '/api-keys', { name: 'ci', capabilities: { storage: true } }, 201);
    await change('delete', `/api-keys/${key.id}`);
    const clientSecret = 'google-client-secret-0123456789';
    secrets.push(clientSecret);
    await change('patch', `/auth-apps/${app.id}`, {
      providers: { google: { enabled: true, client_id: 'web-client', client_secret: clientSecret } },
    });
    const member = await createAccount();
    await change('put', `/members/${member.id}`, { role: 'read' });
    await change('delete', `/members/${member.id}`);
    await change('delete', `/sites/${b.id}`);
    await change('delete', `/buckets/${bucket.id}`);
    await change('delete', `/databases/${db2.id}`);

    const events = await allEvents(as, `${path()}/activity`);
    expect(countByAction(events)).toEqual({
      'project.create': 1,
      'site.create': 2,
      'database.create': 2,
      'bucket.create': 1,
      'auth_app.create': 1,
      'connection.create': 2,
      'connection.level': 1,
      'connection.promote': 1,
      'credential.rotate': 3,
      'connection.delete': 1,
      'database.stop': 1,
      'database.start': 1,
      'principal.create': 1,
      'principal.rotate': 1,
      'principal.revoke': 1,
      'env.set': 1,
      'deploy.create': 1,
      'deploy.rollback': 1,
      'api_key.create': 1,
      'api_key.revoke': 1,
      'auth_app.update': 1,
      'member.role': 1,
      'member.remove': 1,
      'site.delete': 1,
      'bucket.delete': 1,
      'database.delete': 1,
    });
    for (const e of events) {
      expect(e.actor, e.action).toMatchObject({ type: 'account', id: owner.id, email: owner.email });
      expect(e.via, e.action).toBe('api');
      expect(e.project_id).toBe(p.project.id);
    }
    const levelEvent = events.find((e) => e.action === 'connection.level');
    expect(levelEvent).toMatchObject({
      site_id: a.id,
      target: { type: 'connection', name: `${a.slug} → ${db.name}` },
      details: { from: 'read-only', level: 'connect', resource_id: db.id },
    });
    expect(events.find((e) => e.action === 'env.set')?.details).toEqual({ names: ['API_SECRET'] });
    expect(secrets.length).toBeGreaterThan(8);
    expectNoSecret(events, secrets);
    // Newest first: the last change made is the first event.
    expect(events[0]?.action).toBe('database.delete');
  });
});

describe("the account's own record", () => {
  it('records a token made and revoked and a session opened and ended, never their values', async () => {
    const account = await createAccount();
    const me = api().as(account.token);
    const made = await me.post<{ id: string; token: string }>('/api/v1/account/tokens', { name: 'laptop' });
    expect(made.status).toBe(201);
    expect((await me.delete(`/api/v1/account/tokens/${made.body.id}`)).status).toBe(200);
    const session = await me.post<{ token: string }>('/api/v1/account/sessions', {});
    expect(session.status).toBe(201);
    expect((await api().as(session.body.token).delete('/api/v1/account/session')).status).toBe(200);
    const events = await allEvents(me, '/api/v1/account/activity');
    expect(events.map((e) => e.action)).toEqual([
      'session.end',
      'session.create',
      'token.revoke',
      'token.create',
      'account.create',
    ]);
    expect(events[3]).toMatchObject({
      target: { type: 'token', id: made.body.id, name: 'laptop' },
      via: 'api',
    });
    expect(events[4]?.actor).toMatchObject({ type: 'operator' });
    expectNoSecret(events, [account.token, made.body.token, session.body.token]);
    // Another account sees none of it.
    const other = await createAccount();
    expect(await allEvents(api().as(other.token), '/api/v1/account/activity')).toHaveLength(1);
    expect(inject('baseUrl')).toBeTruthy();
  });
});
