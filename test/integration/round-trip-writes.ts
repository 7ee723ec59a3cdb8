/**
 * A successful request of every documented write, for round-trip-budgets.test.ts: each makes
 * the fresh rows it removes or changes, so that the request it returns answers with success.
 */
import { expect, inject } from 'vitest';
import { api, createAccount, uniqueName } from '../helpers/api';
import { createBucket, createDatabase, createSite, metadata } from '../helpers/connections';
import type { Call, RoundTripWorld } from '../helpers/round-trip-fixture';
import { cliRequests } from './round-trip-cli-requests';

/** The write requests of `world`, by `METHOD path` as the OpenAPI document names the route. */
export function writeRequests(world: RoundTripWorld): Record<string, () => Promise<Call>> {
  const { s, f, worker } = world;
  /** Fresh objects for a write that removes or changes what it names. */
  const freshSite = async () => (await createSite(s.as, f.project)).id;
  const base = () => `/api/v1/projects/${f.project}`;
  /** A new principal on the fixture's database or bucket; its id. */
  async function freshPrincipal(segment: 'databases' | 'buckets', serviceId: string): Promise<string> {
    const level = segment === 'databases' ? 'read-only' : 'read';
    const res = await s.as.post<{ id: string }>(`${base()}/${segment}/${serviceId}/principals`, {
      name: uniqueName('p'),
      level,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  /** A successful request of every documented write. */
  return {
    ...cliRequests(world),
    'POST /api/v1/accounts': async () => ({
      method: 'POST',
      path: '/api/v1/accounts',
      body: { email: `${uniqueName('b')}@example.test` },
      as: api(worker.baseUrl, inject('operatorToken')),
    }),
    'POST /api/v1/account/tokens': async () => ({
      method: 'POST',
      path: '/api/v1/account/tokens',
      body: { name: 'more' },
    }),
    'DELETE /api/v1/account/tokens/{tokenId}': async () => {
      const t = await s.as.post<{ id: string }>('/api/v1/account/tokens', { name: 'gone' });
      return { method: 'DELETE', path: `/api/v1/account/tokens/${t.body.id}` };
    },
    'DELETE /api/v1/account/token': async () => {
      // A token revokes itself (tether logout): one made for it, so the fixture's token lives on.
      const t = await s.as.post<{ token: string }>('/api/v1/account/tokens', { name: 'logout' });
      return { method: 'DELETE', path: '/api/v1/account/token', as: api(worker.baseUrl, t.body.token) };
    },
    'POST /api/v1/account/sessions': async () => ({ method: 'POST', path: '/api/v1/account/sessions' }),
    'DELETE /api/v1/account/sessions/{sessionId}': async () => {
      await s.as.post('/api/v1/account/sessions');
      const listed = await s.as.get<{ sessions: Array<{ id: string }> }>('/api/v1/account/sessions');
      return { method: 'DELETE', path: `/api/v1/account/sessions/${listed.body.sessions.at(-1)?.id}` };
    },
    'DELETE /api/v1/account/sessions': async () => {
      // Sign out everywhere, as an account of its own so the fixture's sessions live on.
      const other = await createAccount(undefined, worker.baseUrl);
      await api(worker.baseUrl, other.token).post('/api/v1/account/sessions');
      return { method: 'DELETE', path: '/api/v1/account/sessions', as: api(worker.baseUrl, other.token) };
    },
    'DELETE /api/v1/account/session': async () => {
      const session = await s.as.post<{ token: string }>('/api/v1/account/sessions');
      return {
        method: 'DELETE',
        path: '/api/v1/account/session',
        as: api(worker.baseUrl, session.body.token),
      };
    },
    'POST /api/v1/projects': async () => ({
      method: 'POST',
      path: '/api/v1/projects',
      body: { name: uniqueName('p') },
    }),
    'PUT /api/v1/projects/{id}/members/{accountId}': async () => {
      const other = await createAccount(undefined, worker.baseUrl);
      return { method: 'PUT', path: `${base()}/members/${other.id}`, body: { role: 'write' } };
    },
    'DELETE /api/v1/projects/{id}/members/{accountId}': async () => {
      const other = await createAccount(undefined, worker.baseUrl);
      await s.as.put(`${base()}/members/${other.id}`, { role: 'read' });
      return { method: 'DELETE', path: `${base()}/members/${other.id}` };
    },
    'POST /api/v1/projects/{id}/invitations': async () => ({
      method: 'POST',
      path: `${base()}/invitations`,
      body: { email: `${uniqueName('inv')}@example.test`, role: 'read' },
    }),
    'DELETE /api/v1/projects/{id}/invitations/{invitationId}': async () => {
      const made = await s.as.post<{ id: string }>(`${base()}/invitations`, {
        email: `${uniqueName('inv')}@example.test`,
        role: 'read',
      });
      return { method: 'DELETE', path: `${base()}/invitations/${made.body.id}` };
    },
    'GET /api/v1/invitations/{token}': async () => {
      const made = await s.as.post<{ accept_url: string }>(`${base()}/invitations`, {
        email: `${uniqueName('inv')}@example.test`,
        role: 'read',
      });
      return { method: 'GET', path: `/api/v1/invitations/${made.body.accept_url.split('/').at(-1)}` };
    },
    'POST /api/v1/invitations/{token}/accept': async () => {
      const invitee = await createAccount(undefined, worker.baseUrl);
      const made = await s.as.post<{ accept_url: string }>(`${base()}/invitations`, {
        email: invitee.email,
        role: 'read',
      });
      const token = made.body.accept_url.split('/').at(-1);
      return {
        method: 'POST',
        path: `/api/v1/invitations/${token}/accept`,
        as: api(worker.baseUrl, invitee.token),
      };
    },
    'POST /api/v1/projects/{id}/api-keys': async () => ({
      method: 'POST',
      path: `${base()}/api-keys`,
      body: { name: 'k', capabilities: { storage: true } },
    }),
    'DELETE /api/v1/projects/{id}/api-keys/{keyId}': async () => {
      const k = await s.as.post<{ id: string }>(`${base()}/api-keys`, { name: 'gone', capabilities: {} });
      return { method: 'DELETE', path: `${base()}/api-keys/${k.body.id}` };
    },
    'POST /api/v1/projects/{id}/sites': async () => ({
      method: 'POST',
      path: `${base()}/sites`,
      body: { slug: uniqueName('s') },
    }),
    'DELETE /api/v1/projects/{id}/sites/{siteId}': async () => {
      // A site holding credentials of its own: the count covers dropping them.
      const site = await freshSite();
      for (const [kind, service] of [
        ['database', f.database],
        ['bucket', f.bucket],
      ] as const) {
        const res = await s.as.post(`${base()}/sites/${site}/connections`, { kind, resource_id: service.id });
        expect(res.status, res.text).toBe(201);
      }
      return { method: 'DELETE', path: `${base()}/sites/${site}` };
    },
    'POST /api/v1/projects/{id}/databases': async () => ({
      method: 'POST',
      path: `${base()}/databases`,
      body: { name: uniqueName('db').replace(/-/g, '_'), engine: 'postgresql' },
    }),
    'POST /api/v1/projects/{id}/databases/{dbId}/stop': async () => ({
      method: 'POST',
      path: `${base()}/databases/${(await createDatabase(s.as, f.project)).id}/stop`,
    }),
    'POST /api/v1/projects/{id}/databases/{dbId}/start': async () => {
      const db = await createDatabase(s.as, f.project);
      await s.as.post(`${base()}/databases/${db.id}/stop`);
      return { method: 'POST', path: `${base()}/databases/${db.id}/start` };
    },
    'DELETE /api/v1/projects/{id}/databases/{dbId}': async () => ({
      method: 'DELETE',
      path: `${base()}/databases/${(await createDatabase(s.as, f.project)).id}`,
    }),
    'POST /api/v1/projects/{id}/buckets': async () => ({
      method: 'POST',
      path: `${base()}/buckets`,
      body: { name: uniqueName('bk') },
    }),
    'DELETE /api/v1/projects/{id}/buckets/{bucketId}': async () => ({
      method: 'DELETE',
      path: `${base()}/buckets/${(await createBucket(s.as, f.project)).id}`,
    }),
    'PUT /api/v1/projects/{id}/sites/{siteId}/env': async () => ({
      method: 'PUT',
      path: `${base()}/sites/${f.site}/env`,
      body: { vars: { A: uniqueName('v') } },
    }),
    'POST /api/v1/projects/{id}/sites/{siteId}/deploys': async () => ({
      method: 'POST',
      path: `${base()}/sites/${f.site}/deploys`,
      body: {},
    }),
    'POST /api/v1/projects/{id}/sites/{siteId}/deploys/{deployId}/rollback': async () => {
      await s.as.post(`${base()}/sites/${f.site}/deploys`, {});
      return { method: 'POST', path: `${base()}/sites/${f.site}/deploys/${f.deploy}/rollback` };
    },
    'POST /api/v1/projects/{id}/auth-apps': async () => ({
      method: 'POST',
      path: `${base()}/auth-apps`,
      body: { app_id: uniqueName('app') },
    }),
    'PATCH /api/v1/projects/{id}/auth-apps/{authAppId}': async () => ({
      method: 'PATCH',
      path: `${base()}/auth-apps/${f.authApp.id}`,
      body: { name: uniqueName('n') },
    }),
    'DELETE /api/v1/projects/{id}/auth-apps/{authAppId}': async () => {
      const made = await s.as.post<{ id: string }>(`${base()}/auth-apps`, { app_id: uniqueName('gone') });
      expect(made.status, made.text).toBe(201);
      return { method: 'DELETE', path: `${base()}/auth-apps/${made.body.id}` };
    },
    'POST /api/v1/projects/{id}/auth-apps/{authAppId}/server-key/rotate': async () => ({
      method: 'POST',
      path: `${base()}/auth-apps/${f.authApp.id}/server-key/rotate`,
    }),
    'POST /api/v1/projects/{id}/auth-apps/{authAppId}/signing-key/rotate': async () => ({
      method: 'POST',
      path: `${base()}/auth-apps/${f.authApp.id}/signing-key/rotate`,
    }),
    'PATCH /api/v1/projects/{id}/auth-apps/{authAppId}/users/{userId}': async () => ({
      method: 'PATCH',
      path: `${base()}/auth-apps/${f.authApp.id}/users/${f.endUser}`,
      body: { disabled: true },
    }),
    'DELETE /api/v1/projects/{id}/auth-apps/{authAppId}/users/{userId}': async () => {
      const [user] = await metadata<{ id: string }>(
        `insert into auth_users (id, auth_app_id, email) values (gen_random_uuid(), $1, $2) returning id`,
        [f.authApp.id, `${uniqueName('gone')}@example.test`],
      );
      return { method: 'DELETE', path: `${base()}/auth-apps/${f.authApp.id}/users/${user?.id}` };
    },
    'PUT /api/v1/projects/{id}/sites/{siteId}/connections': async () => {
      const site = await freshSite();
      return {
        method: 'PUT',
        path: `${base()}/sites/${site}/connections`,
        body: { connections: [{ kind: 'auth_app', resource_id: f.authApp.id }] },
      };
    },
    'POST /api/v1/projects/{id}/sites/{siteId}/connections': async () => ({
      method: 'POST',
      path: `${base()}/sites/${await freshSite()}/connections`,
      body: { kind: 'database', resource_id: f.database.id },
    }),
    'DELETE /api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}': async () => {
      const site = await freshSite();
      await s.as.post(`${base()}/sites/${site}/connections`, {
        kind: 'database',
        resource_id: f.database.id,
      });
      return { method: 'DELETE', path: `${base()}/sites/${site}/connections/database/${f.database.id}` };
    },
    'POST /api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotate': async () => ({
      method: 'POST',
      path: `${base()}/sites/${f.site}/connections/database/${f.database.id}/rotate`,
    }),
    'POST /api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/promote': async () => {
      const site = await freshSite();
      const second = await createDatabase(s.as, f.project);
      for (const db of [f.database, second])
        await s.as.post(`${base()}/sites/${site}/connections`, { kind: 'database', resource_id: db.id });
      return { method: 'POST', path: `${base()}/sites/${site}/connections/database/${second.id}/promote` };
    },
    'PUT /api/v1/databases/{id}/sites': async () => ({
      method: 'PUT',
      path: `/api/v1/databases/${f.database.id}/sites`,
      body: { sites: [{ site_id: f.site }] },
    }),
    'POST /api/v1/projects/{id}/databases/{dbId}/credentials/rotate': async () => ({
      method: 'POST',
      path: `${base()}/databases/${f.database.id}/credentials/rotate`,
    }),
    'POST /api/v1/projects/{id}/buckets/{bucketId}/credentials/rotate': async () => ({
      method: 'POST',
      path: `${base()}/buckets/${f.bucket.id}/credentials/rotate`,
    }),
    'POST /api/v1/projects/{id}/databases/{dbId}/principals': async () => ({
      method: 'POST',
      path: `${base()}/databases/${f.database.id}/principals`,
      body: { name: uniqueName('p'), level: 'read-only' },
    }),
    'POST /api/v1/projects/{id}/buckets/{bucketId}/principals': async () => ({
      method: 'POST',
      path: `${base()}/buckets/${f.bucket.id}/principals`,
      body: { name: uniqueName('p'), level: 'read' },
    }),
    'POST /api/v1/projects/{id}/databases/{dbId}/principals/{principalId}/rotate': async () => ({
      method: 'POST',
      path: `${base()}/databases/${f.database.id}/principals/${await freshPrincipal('databases', f.database.id)}/rotate`,
    }),
    'POST /api/v1/projects/{id}/buckets/{bucketId}/principals/{principalId}/rotate': async () => ({
      method: 'POST',
      path: `${base()}/buckets/${f.bucket.id}/principals/${await freshPrincipal('buckets', f.bucket.id)}/rotate`,
    }),
    'DELETE /api/v1/projects/{id}/databases/{dbId}/principals/{principalId}': async () => ({
      method: 'DELETE',
      path: `${base()}/databases/${f.database.id}/principals/${await freshPrincipal('databases', f.database.id)}`,
    }),
    'DELETE /api/v1/projects/{id}/buckets/{bucketId}/principals/{principalId}': async () => ({
      method: 'DELETE',
      path: `${base()}/buckets/${f.bucket.id}/principals/${await freshPrincipal('buckets', f.bucket.id)}`,
    }),
    'PUT /api/v1/projects/{id}/sites/{siteId}/target': async () => ({
      method: 'PUT',
      path: `${base()}/sites/${f.site}/target`,
      // A webhook is checked without a call, so the budget counts Tether's own trips only.
      body: { type: 'webhook', url: 'http://127.0.0.1:9/patches', secret: 'a-webhook-secret-of-some-length' },
    }),
    'DELETE /api/v1/projects/{id}/sites/{siteId}/target': async () => ({
      method: 'DELETE',
      path: `${base()}/sites/${f.site}/target`,
    }),
    'POST /api/v1/projects/{id}/sites/{siteId}/deliveries/{deliveryId}/retry': async () => {
      const site = await freshSite();
      const [dead] = await metadata<{ id: string }>(
        `insert into deliveries (id, kind, project_id, target_id, reason, status, attempts, last_error)
         values (gen_random_uuid(), 'runtime_patch', $1, $2, 'connect', 'dead', 11, 'the receiver answered 500')
         returning id`,
        [f.project, site],
      );
      return { method: 'POST', path: `${base()}/sites/${site}/deliveries/${dead?.id}/retry`, ok: [202] };
    },
    'PUT /api/v1/storage/{id}/sites': async () => ({
      method: 'PUT',
      path: `/api/v1/storage/${f.bucket.id}/sites`,
      body: { sites: [] },
    }),
  };
}
