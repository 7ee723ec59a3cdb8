/**
 * Fixtures for the connection tests: a Worker whose live patches go to a local receiver and
 * whose bucket keys and MongoDB users are made by the stand-ins, plus small API shorthands.
 */
import pg from 'pg';
import { expect, inject } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { type AwsStandIn, startAwsStandIn } from '../../scripts/local/stand-ins/aws-stand-in';
import { type AtlasStandIn, startAtlasStandIn } from '../../scripts/local/stand-ins/mongodb-atlas-stand-in';
import { type ApiClient, api, createAccount, createProject, uniqueName } from './api';
import { type Receiver, startReceiver } from './receiver';
import { type ExtraWorker, startExtraWorker } from './worker';

/** The secret live patches are signed with in these tests. */
export const PATCH_SECRET = 'patch-secret-for-tests-0123456789';

/** The secret network policies are signed with in these tests. */
export const POLICY_SECRET = 'policy-secret-for-tests-0123456789';

/** The variables that send a Worker's network policies to `receiver` (at /policies), signed with {@link POLICY_SECRET}. */
export const policyEnv = (receiver: Receiver): Record<string, string> => ({
  NETWORK_POLICY_URL: `${receiver.url}/policies`,
  NETWORK_POLICY_SECRET: POLICY_SECRET,
});

/** A Worker with a patch receiver and the AWS and Atlas stand-ins. */
export interface ConnectionsWorld {
  worker: ExtraWorker;
  receiver: Receiver;
  aws: AwsStandIn;
  atlas: AtlasStandIn;
  stop(): Promise<void>;
}

/** Starts the receiver, the stand-ins and a Worker wired to them (`env` on top). */
export async function startConnectionsWorld(env: Record<string, string> = {}): Promise<ConnectionsWorld> {
  const [receiver, aws, atlas] = await Promise.all([startReceiver(), startAwsStandIn(), startAtlasStandIn()]);
  const worker = await startExtraWorker({
    RUNTIME_PATCH_URL: `${receiver.url}/patches`,
    RUNTIME_PATCH_SECRET: PATCH_SECRET,
    IAM_ENDPOINT: aws.url,
    STORAGE_ENDPOINT: aws.url,
    IAM_ACCESS_KEY_ID: aws.accessKeyId,
    IAM_SECRET_ACCESS_KEY: aws.secretAccessKey,
    MONGODB_ADMIN_URL: atlas.adminUrl,
    MONGODB_ADMIN_KEY: atlas.adminKey,
    ...env,
  });
  return {
    worker,
    receiver,
    aws,
    atlas,
    async stop() {
      await worker.stop();
      await Promise.all([receiver.close(), aws.stop(), atlas.stop()]);
    },
  };
}

/**
 * Starts another Worker like `world`'s whose admin sides (the cluster, Atlas, IAM and storage)
 * are all one closed port: the outage behind the 503 SERVICE_UNAVAILABLE promises. Stop it in a `finally`.
 */
export async function startAdminOutageWorker(world: ConnectionsWorld): Promise<ExtraWorker> {
  const closed = `127.0.0.1:${await freePort()}`;
  const admin = new URL(inject('adminUrl'));
  admin.host = closed;
  return startExtraWorker({
    CUSTOMER_DB_ADMIN_URL: admin.toString(),
    IAM_ENDPOINT: `http://${closed}`,
    STORAGE_ENDPOINT: `http://${closed}`,
    MONGODB_ADMIN_URL: world.atlas.adminUrl.replace(/127\.0\.0\.1:\d+/, closed),
  });
}

/** An owner with a project and `siteCount` sites, on the Worker at `baseUrl`. */
export interface Seeded {
  as: ApiClient;
  token: string;
  project: { id: string; slug: string };
  sites: Array<{ id: string; slug: string }>;
}

/** Creates an account, a project and its sites. */
export async function seed(baseUrl: string, siteCount = 1): Promise<Seeded> {
  const account = await createAccount(undefined, baseUrl);
  const project = await createProject(account.token, undefined, baseUrl);
  const as = api(baseUrl, account.token);
  const sites = [];
  for (let i = 0; i < siteCount; i++) sites.push(await createSite(as, project.id));
  return { as, token: account.token, project, sites };
}

/** The services a seeded project gets, made in this order: databases, buckets, auth apps. */
export interface ServicesWanted {
  /** How many PostgreSQL databases, or the engine of each. */
  databases?: number | Array<'postgresql' | 'mongodb'>;
  buckets?: number;
  authApps?: number;
}

/** A seeded project with its services. */
export interface SeededProject extends Seeded {
  /** The first site (the only one, in a one-site project). */
  site: { id: string; slug: string };
  databases: Service[];
  buckets: Service[];
  authApps: Service[];
}

/**
 * An owner with a project, `sites` sites and the services asked for: the set-up most connection,
 * credential and CLI tests start from. With exactly one site each new service is connected to
 * it at the default level (spec: a new service in a one-site project); with more, to none.
 */
export async function seedProject(
  baseUrl: string,
  sites: number,
  wanted: ServicesWanted = {},
): Promise<SeededProject> {
  const s = await seed(baseUrl, sites);
  const engines =
    typeof wanted.databases === 'number'
      ? Array.from({ length: wanted.databases }, () => 'postgresql' as const)
      : (wanted.databases ?? []);
  const databases: Service[] = [];
  for (const engine of engines) databases.push(await createDatabase(s.as, s.project.id, engine));
  const buckets: Service[] = [];
  for (let i = 0; i < (wanted.buckets ?? 0); i++) buckets.push(await createBucket(s.as, s.project.id));
  const authApps: Service[] = [];
  for (let i = 0; i < (wanted.authApps ?? 0); i++) authApps.push(await createAuthApp(s.as, s.project.id));
  return { ...s, site: s.sites[0] as { id: string; slug: string }, databases, buckets, authApps };
}

/** The API path of a seeded project. */
export const projectPath = (p: Seeded): string => `/api/v1/projects/${p.project.id}`;

/** The connections route of one of its sites (the first by default). */
export const connectionsPath = (p: Seeded, siteId = p.sites[0]?.id): string =>
  `${projectPath(p)}/sites/${siteId}/connections`;

/** A connection as the API lists it. */
export interface Connection {
  site_id: string;
  site_slug: string;
  kind: string;
  resource_id: string;
  resource_name: string;
  level: string;
  env_names: string[];
  created_at: string;
}

/** A site's connections listing: its connections and what connecting each available service would add. */
export interface ConnectionListing {
  connections: Connection[];
  available: Array<{ kind: string; resource_id: string; levels: string[]; env_names: string[] }>;
}

/** Connects one of a project's sites (the first by default) as `body` says; the answer, whatever its status. */
export function connectSite(p: Seeded, body: Record<string, unknown>, siteId = p.sites[0]?.id) {
  return p.as.post<Connection>(connectionsPath(p, siteId), body);
}

/** The connections listing of one of a project's sites (the first by default). */
export async function connectionListing(p: Seeded, siteId = p.sites[0]?.id): Promise<ConnectionListing> {
  return (await p.as.get<ConnectionListing>(connectionsPath(p, siteId))).body;
}

/** A site's connections through `as`, straight from the API; 200 or the test fails. */
export async function siteConnections(
  as: ApiClient,
  projectId: string,
  siteId: string,
): Promise<Connection[]> {
  const res = await as.get<{ connections: Connection[] }>(
    `/api/v1/projects/${projectId}/sites/${siteId}/connections`,
  );
  expect(res.status).toBe(200);
  return res.body.connections;
}

/** The effective variables of one of its sites (the first by default); throws unless 200. */
export async function effectiveVars(p: Seeded, siteId = p.sites[0]?.id): Promise<Record<string, string>> {
  const res = await p.as.get<{ vars: Record<string, string> }>(
    `${projectPath(p)}/sites/${siteId}/env/effective`,
  );
  if (res.status !== 200) throw new Error(`effective variables: ${res.status} ${res.text}`);
  return res.body.vars;
}

/** Creates a site; throws unless 201. */
export async function createSite(as: ApiClient, projectId: string, slug = uniqueName('site')) {
  const res = await as.post<{ id: string; slug: string }>(`/api/v1/projects/${projectId}/sites`, { slug });
  if (res.status !== 201) throw new Error(`create site: ${res.status} ${res.text}`);
  return res.body;
}

/** A created service: its id and name. */
export interface Service {
  id: string;
  name: string;
}

async function created(res: Promise<{ status: number; text: string; body: unknown }>, what: string) {
  const r = await res;
  if (r.status !== 201) throw new Error(`create ${what}: ${r.status} ${r.text}`);
  return r.body as Record<string, string>;
}

/** Creates a database (postgresql unless given). */
export async function createDatabase(
  as: ApiClient,
  projectId: string,
  engine: 'postgresql' | 'mongodb' = 'postgresql',
  extra: Record<string, unknown> = {},
): Promise<Service> {
  const name = uniqueName('db').replace(/-/g, '_');
  const body = await created(
    as.post(`/api/v1/projects/${projectId}/databases`, { name, engine, ...extra }),
    'database',
  );
  return { id: body.id as string, name };
}

/** Creates a bucket. */
export async function createBucket(as: ApiClient, projectId: string): Promise<Service> {
  const name = uniqueName('bk');
  const body = await created(as.post(`/api/v1/projects/${projectId}/buckets`, { name }), 'bucket');
  return { id: body.id as string, name };
}

/** Creates an auth app; its name is its app_id. */
export async function createAuthApp(as: ApiClient, projectId: string): Promise<Service> {
  const appId = uniqueName('app');
  const body = await created(
    as.post(`/api/v1/projects/${projectId}/auth-apps`, { app_id: appId }),
    'auth app',
  );
  return { id: body.id as string, name: appId };
}

/** Runs one query on the metadata database. */
export async function metadata<T extends pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: inject('metadataUrl') });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A delivery row as the tests read it. */
export interface DeliveryRow {
  id: string;
  target_id: string;
  reason: string;
  set_names: string[];
  unset_names: string[];
  status: string;
  attempts: number;
}

/** The runtime-patch deliveries of a site, oldest first. */
export function deliveriesOf(siteId: string): Promise<DeliveryRow[]> {
  return metadata<DeliveryRow>(
    `select id, target_id, reason, set_names, unset_names, status, attempts from deliveries
     where kind = 'runtime_patch' and target_id = $1 order by created_at, id`,
    [siteId],
  );
}
