/**
 * Every route's sequential metadata round trips, counted on the wire (issue 19): the test walks
 * every route of the OpenAPI document and holds each to its budget in {@link BUDGETS}. A read
 * (GET) makes at most one, caller and authorisation included; a write at most two besides its
 * work on the customer's cluster or provider; the code exchange none; an ID-token sign-in of a
 * returning user at most two. Trips sent side by side count once (see counting-ws-proxy.ts).
 *
 * A GET is called with the fixture's ids in its path (a new GET with a known path parameter
 * is covered as soon as it is documented); a write needs a row in {@link WRITES} that makes a
 * request it answers with success.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiClient, api, createAccount, uniqueName } from '../helpers/api';
import {
  createAuthApp,
  createBucket,
  createDatabase,
  createSite,
  metadata,
  type Seeded,
  type Service,
  seed,
} from '../helpers/connections';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-ws-proxy';
import {
  asClient,
  CLIENT_IP_HEADER,
  createTestAuthApp,
  githubAccount,
  oneTimeCode,
  pkcePair,
  startSignIn,
  type TestAuthApp,
} from '../helpers/oauth';
import { type ProviderStandIn, STAND_IN_ISSUER, startProviderStandIn } from '../helpers/provider-stand-in';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';
import { OVER_BUDGET } from './round-trip-over-budget';

const NO_CONSUMER_CONFIG = fileURLToPath(
  new URL('../fixtures/wrangler-no-queue-consumer.toml', import.meta.url),
);

/** The budget of every kind of route, as data. */
const BUDGETS = { read: 1, write: 2, exchange: 0, idTokenReturning: 2 } as const;

/** The budget of a route: a GET is a read, anything else a write, unless {@link AUTH_BUDGETS} says. */
const budgetOf = (method: string, path: string): number =>
  AUTH_BUDGETS[`${method} ${path}`] ?? (method === 'GET' ? BUDGETS.read : BUDGETS.write);

/** The auth service's routes: the exchange and a returning user's sign-ins. */
const AUTH_BUDGETS: Record<string, number> = {
  'POST /v1/{appSlug}/oauth/exchange': BUDGETS.exchange,
  'POST /v1/{appSlug}/oauth/id-token': BUDGETS.idTokenReturning,
  // The browser sign-in's callback is a GET, but it signs a user in: a returning user's sign-in.
  'GET /v1/{appSlug}/auth/{provider}/callback': BUDGETS.idTokenReturning,
};

let proxy: CountingProxy;
let standIn: ProviderStandIn;
let worker: ExtraWorker;
let s: Seeded;
let f: Fixture;
let app: TestAuthApp;

/** Ids a request path may name, by OpenAPI parameter name. */
interface Fixture {
  project: string;
  site: string;
  database: Service;
  bucket: Service;
  authApp: Service;
  endUser: string;
  member: string;
  apiKey: string;
  token: string;
  deploy: string;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
  /** Success statuses; 2xx unless given. */
  ok?: number[];
  /** Another caller (default: the project's owner). */
  as?: ApiClient;
  headers?: Record<string, string>;
}

beforeAll(async () => {
  const metadataDb = new URL(inject('metadataUrl')).pathname.slice(1);
  const env = inject('workerEnv');
  proxy = await startCountingProxy(inject('pgPort'), metadataDb, env.NEON_HTTP_ENDPOINT as string);
  standIn = await startProviderStandIn();
  // No queue consumer: its work on earlier messages would add trips to a request's count.
  worker = await startExtraWorker(
    { ...standIn.env, CLIENT_IP_HEADER, NEON_WS_PROXY: proxy.url, NEON_HTTP_ENDPOINT: proxy.httpEndpoint },
    { configPath: NO_CONSUMER_CONFIG },
  );
  s = await seed(worker.baseUrl, 1);
  const project = s.project.id;
  const site = s.sites[0]?.id as string;
  const database = await createDatabase(s.as, project);
  const bucket = await createBucket(s.as, project);
  const authApp = await createAuthApp(s.as, project);
  const connected = await s.as.post(`/api/v1/projects/${project}/sites/${site}/connections`, {
    kind: 'database',
    resource_id: database.id,
  });
  expect(connected.status, connected.text).toBe(201);
  const member = await createAccount(undefined, worker.baseUrl);
  expect((await s.as.put(`/api/v1/projects/${project}/members/${member.id}`, { role: 'read' })).status).toBe(
    200,
  );
  const key = await s.as.post<{ id: string }>(`/api/v1/projects/${project}/api-keys`, {
    name: 'budget',
    capabilities: { databases: true },
  });
  const token = await s.as.post<{ id: string }>('/api/v1/account/tokens', { name: 'budget' });
  const deploy = await s.as.post<{ id: string }>(`/api/v1/projects/${project}/sites/${site}/deploys`, {});
  expect(deploy.status, deploy.text).toBe(201);
  const [user] = await metadata<{ id: string }>(
    `insert into auth_users (id, auth_app_id, email) values (gen_random_uuid(), $1, $2) returning id`,
    [authApp.id, `${uniqueName('user')}@example.test`],
  );
  app = await createTestAuthApp(worker.baseUrl);
  f = {
    project,
    site,
    database,
    bucket,
    authApp,
    endUser: user?.id as string,
    member: member.id,
    apiKey: key.body.id,
    token: token.body.id,
    deploy: deploy.body.id,
  };
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await proxy?.stop();
  await standIn?.close();
});

/** Fills a documented path's parameters from the fixture; undefined for a parameter it lacks. */
function fill(path: string): string | undefined {
  const services: Record<string, string> = {
    '/api/v1/databases/{id}': f.database.id,
    '/api/v1/storage/{id}': f.bucket.id,
    '/api/v1/auth-apps/{id}': f.authApp.id,
  };
  for (const [prefix, id] of Object.entries(services))
    if (path.startsWith(prefix)) path = path.replace('{id}', id);
  const byName: Record<string, string> = {
    id: f.project,
    siteId: f.site,
    dbId: f.database.id,
    bucketId: f.bucket.id,
    authAppId: f.authApp.id,
    userId: f.endUser,
    accountId: f.member,
    keyId: f.apiKey,
    tokenId: f.token,
    deployId: f.deploy,
    kind: 'database',
    resourceId: f.database.id,
  };
  let missing = false;
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = byName[name];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : filled;
}

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
const WRITES: Record<string, () => Promise<Call>> = {
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
  'POST /api/v1/account/sessions': async () => ({ method: 'POST', path: '/api/v1/account/sessions' }),
  'DELETE /api/v1/account/sessions/{sessionId}': async () => {
    await s.as.post('/api/v1/account/sessions');
    const listed = await s.as.get<{ sessions: Array<{ id: string }> }>('/api/v1/account/sessions');
    return { method: 'DELETE', path: `/api/v1/account/sessions/${listed.body.sessions.at(-1)?.id}` };
  },
  'DELETE /api/v1/account/session': async () => {
    const session = await s.as.post<{ token: string }>('/api/v1/account/sessions');
    return { method: 'DELETE', path: '/api/v1/account/session', as: api(worker.baseUrl, session.body.token) };
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
  'DELETE /api/v1/projects/{id}/sites/{siteId}': async () => ({
    method: 'DELETE',
    path: `${base()}/sites/${await freshSite()}`,
  }),
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
    await s.as.post(`${base()}/sites/${site}/connections`, { kind: 'database', resource_id: f.database.id });
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
  'PUT /api/v1/storage/{id}/sites': async () => ({
    method: 'PUT',
    path: `/api/v1/storage/${f.bucket.id}/sites`,
    body: { sites: [] },
  }),
};

/** Claims of a Google ID token for `app`, the same subject every time (a returning user). */
const returningGoogleUser = (() => {
  const sub = uniqueName('google');
  const email = `${uniqueName('person')}@example.test`;
  return () => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: STAND_IN_ISSUER,
      aud: app.google.web,
      sub,
      email,
      email_verified: true,
      iat: now - 5,
      exp: now + 3600,
    };
  };
})();
const returningGithubUser = githubAccount();

/** A refresh token of a fresh session of the app. */
async function refreshToken(): Promise<string> {
  const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
  const res = await api(worker.baseUrl).post<{ refresh_token: string }>(
    `/v1/${app.slug}/oauth/exchange`,
    { code, code_verifier: verifier },
    { headers: asClient() },
  );
  expect(res.status, res.text).toBe(200);
  return res.body.refresh_token;
}

/** A successful request of every route of the auth service. */
const AUTH: Record<string, () => Promise<Call>> = {
  'GET /v1/{appSlug}/.well-known/jwks.json': async () => ({
    method: 'GET',
    path: `/v1/${app.slug}/.well-known/jwks.json`,
  }),
  'GET /v1/{appSlug}/auth/{provider}': async () => {
    const { challenge } = await pkcePair();
    const query = { redirect_uri: 'myapp://auth', code_challenge: challenge, code_challenge_method: 'S256' };
    return {
      method: 'GET',
      path: `/v1/${app.slug}/auth/github?${new URLSearchParams(query)}`,
      ok: [302],
      headers: asClient(),
    };
  },
  'GET /v1/{appSlug}/auth/{provider}/callback': async () => {
    const { challenge } = await pkcePair();
    const query = { redirect_uri: 'myapp://auth', code_challenge: challenge, code_challenge_method: 'S256' };
    // A returning user: the same GitHub account signed in before the counted callback.
    for (let i = 0; i < 2; i++) {
      const { state } = await startSignIn(worker.baseUrl, app.slug, 'github', query);
      const code = uniqueName('ghcode');
      standIn.githubCode(code, returningGithubUser);
      const path = `/v1/${app.slug}/auth/github/callback?${new URLSearchParams({ code, state })}`;
      if (i === 1) return { method: 'GET', path, ok: [302] };
      expect((await api(worker.baseUrl).get(path)).status).toBe(302);
    }
    throw new Error('unreachable');
  },
  'POST /v1/{appSlug}/oauth/exchange': async () => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    return {
      method: 'POST',
      path: `/v1/${app.slug}/oauth/exchange`,
      body: { code, code_verifier: verifier },
      headers: asClient(),
    };
  },
  'POST /v1/{appSlug}/oauth/id-token': async () => {
    const signIn = async (): Promise<Call> => ({
      method: 'POST',
      path: `/v1/${app.slug}/oauth/id-token`,
      body: { provider: 'google', id_token: await standIn.signIdToken(returningGoogleUser()) },
      headers: asClient(),
    });
    const first = await signIn();
    expect((await api(worker.baseUrl).post(first.path, first.body, { headers: first.headers })).status).toBe(
      200,
    );
    return signIn();
  },
  'POST /v1/{appSlug}/oauth/nonce': async () => ({
    method: 'POST',
    path: `/v1/${app.slug}/oauth/nonce`,
    headers: asClient(),
  }),
  'POST /v1/{appSlug}/oauth/refresh': async () => ({
    method: 'POST',
    path: `/v1/${app.slug}/oauth/refresh`,
    body: { refresh_token: await refreshToken() },
    headers: asClient(),
  }),
  'POST /v1/{appSlug}/logout': async () => ({
    method: 'POST',
    path: `/v1/${app.slug}/logout`,
    body: { refresh_token: await refreshToken() },
    headers: asClient(),
  }),
};

/** Sends `call` and returns its answer and the sequential metadata trips it made. */
async function counted(call: Call): Promise<{ status: number; text: string; trips: number }> {
  const client = call.as ?? (call.path.startsWith('/v1/') ? api(worker.baseUrl) : s.as);
  proxy.reset();
  const res = await client.request(call.method, call.path, call.body, { headers: call.headers });
  return { status: res.status, text: res.text, trips: proxy.sequential() };
}

async function documented(): Promise<Array<[string, string]>> {
  const res = await api(worker.baseUrl).get<{ paths: Record<string, Record<string, unknown>> }>(
    '/api/v1/openapi.json',
  );
  const routes: Array<[string, string]> = [];
  for (const [path, ops] of Object.entries(res.body.paths))
    for (const method of Object.keys(ops)) routes.push([method.toUpperCase(), path]);
  return routes;
}

/** The request a documented route is measured with, or why there is none. */
function requestOf(method: string, path: string): (() => Promise<Call>) | string {
  const route = `${method} ${path}`;
  const made = AUTH[route] ?? WRITES[route];
  if (made) return made;
  if (method !== 'GET') return `${route}: add a request to WRITES`;
  const filled = fill(path);
  if (filled === undefined) return `${route}: add its path parameter to fill()`;
  // The tunnel answers a plain GET 426 after every check it makes before opening a socket.
  const ok = path.endsWith('/tunnel/{dbId}') ? [426] : [200];
  return async () => ({ method, path: filled, ok });
}

describe('sequential metadata round trips', () => {
  it('every route of the OpenAPI document keeps its budget', async () => {
    const over: string[] = [];
    const measured: string[] = [];
    for (const [method, path] of await documented()) {
      if (path === '/api/v1/openapi.json') continue;
      const route = `${method} ${path}`;
      const made = requestOf(method, path);
      if (typeof made === 'string') throw new Error(made);
      const call = await made();
      const res = await counted(call);
      const ok = call.ok ? call.ok.includes(res.status) : res.status >= 200 && res.status < 300;
      expect(ok, `${route} answered ${res.status}: ${res.text.slice(0, 200)}`).toBe(true);
      const allowed = OVER_BUDGET[route] ?? budgetOf(method, path);
      measured.push(`${route}: ${res.trips}`);
      if (res.trips > allowed) over.push(`${route}: ${res.trips} (budget ${allowed})`);
    }
    console.log(`sequential metadata round trips:\n${measured.join('\n')}`);
    expect(over).toEqual([]);
    // Some sixty routes, each with its own fixture, one after another.
  }, 240_000);

  it('the code exchange touches no metadata at all, and no route left its budget table', async () => {
    const made = AUTH['POST /v1/{appSlug}/oauth/exchange'] as () => Promise<Call>;
    const res = await counted(await made());
    expect(res.status, res.text).toBe(200);
    expect(proxy.count()).toBe(BUDGETS.exchange);
    const routes = new Set((await documented()).map(([m, p]) => `${m} ${p}`));
    for (const route of [...Object.keys(OVER_BUDGET), ...Object.keys(AUTH), ...Object.keys(WRITES)])
      expect(routes, `${route} is no longer documented`).toContain(route);
  });
});
