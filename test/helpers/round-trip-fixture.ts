/**
 * The world the round-trip budget test measures in: a Worker with no queue consumer
 * behind a {@link startCountingProxy}, a project holding a site connected to a database, a
 * bucket, an auth app, a member, a key, a token, a deploy and an end user, and an auth app of the
 * auth service. {@link fill} names them in a documented path; {@link counted} sends one request
 * and counts the sequential metadata trips it made.
 */
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';
import { type ApiClient, api, createAccount, uniqueName } from './api';
import { enableApple, type TestApple } from './apple';
import {
  createAuthApp,
  createBucket,
  createDatabase,
  metadata,
  type Seeded,
  type Service,
  seed,
} from './connections';
import { type CountingProxy, startCountingProxy } from './counting-ws-proxy';
import { CLIENT_IP_HEADER, createTestAuthApp, type TestAuthApp } from './oauth';
import { type ProviderStandIn, startProviderStandIn } from './provider-stand-in';
import { type ExtraWorker, startExtraWorker } from './worker';

const NO_CONSUMER_CONFIG = fileURLToPath(
  new URL('../fixtures/wrangler-no-queue-consumer.toml', import.meta.url),
);

/** Ids a request path may name, by OpenAPI parameter name. */
export interface Fixture {
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

/** One request of a route, made to be counted. */
export interface Call {
  method: string;
  path: string;
  body?: unknown;
  /** Success statuses; 2xx unless given. */
  ok?: number[];
  /** Another caller (default: the project's owner). */
  as?: ApiClient;
  headers?: Record<string, string>;
  /** A body sent as is (a form), with its content-type in `headers`. */
  rawBody?: string;
}

/** Everything the budget test and its request tables use. */
export interface RoundTripWorld {
  proxy: CountingProxy;
  standIn: ProviderStandIn;
  worker: ExtraWorker;
  s: Seeded;
  f: Fixture;
  app: TestAuthApp;
  /** The app's Apple settings (Apple is enabled on it). */
  apple: TestApple;
}

/** Starts the proxy, the provider stand-in and the Worker, and seeds the fixture. */
export async function startRoundTripWorld(
  started: Partial<RoundTripWorld>,
  extraEnv: Record<string, string> = {},
): Promise<RoundTripWorld> {
  const metadataDb = new URL(inject('metadataUrl')).pathname.slice(1);
  const env = inject('workerEnv');
  const proxy = await startCountingProxy(inject('pgPort'), metadataDb, env.NEON_HTTP_ENDPOINT as string);
  started.proxy = proxy;
  const standIn = await startProviderStandIn();
  started.standIn = standIn;
  // No queue consumer: its work on earlier messages would add trips to a request's count.
  const worker = await startExtraWorker(
    {
      ...standIn.env,
      CLIENT_IP_HEADER,
      NEON_WS_PROXY: proxy.url,
      NEON_HTTP_ENDPOINT: proxy.httpEndpoint,
      ...extraEnv,
    },
    { configPath: NO_CONSUMER_CONFIG },
  );
  started.worker = worker;
  const s = await seed(worker.baseUrl, 1);
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
  const app = await createTestAuthApp(worker.baseUrl);
  const apple = await enableApple(app);
  const f: Fixture = {
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
  return { proxy, standIn, worker, s, f, app, apple };
}

/** Stops what {@link startRoundTripWorld} started, even when it stopped half way. */
export async function stopRoundTripWorld(started: Partial<RoundTripWorld>): Promise<void> {
  await started.worker?.stop();
  await started.proxy?.stop();
  await started.standIn?.close();
}

/** Fills a documented path's parameters from the fixture; undefined for a parameter it lacks. */
export function fill(f: Fixture, path: string): string | undefined {
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

/** Sends `call` and returns its answer and the sequential metadata trips it made. */
export async function counted(
  w: RoundTripWorld,
  call: Call,
): Promise<{ status: number; text: string; trips: number }> {
  const client = call.as ?? (call.path.startsWith('/v1/') ? api(w.worker.baseUrl) : w.s.as);
  w.proxy.reset();
  const res = await client.request(call.method, call.path, call.body, {
    headers: call.headers,
    rawBody: call.rawBody,
  });
  return { status: res.status, text: res.text, trips: w.proxy.sequential() };
}
