/**
 * Everything the local Worker runs against, without the Worker: embedded PostgreSQL, the
 * WebSocket proxy the Neon driver needs, the metadata migrations, the stand-ins and the network
 * policy receiver, and the variables a Worker needs to use them. stack.ts adds the Worker under
 * Miniflare; the in-process test project (test/node-world.ts) serves it from Node instead.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareClusterAdmin } from './cluster-admin';
import { type GeneratedSecrets, generateSecrets } from './generate-secrets';
import { METADATA_DATABASE, migrateMetadata } from './metadata-database';
import { startNetworkPolicyReceiver } from './network-policy-receiver';
import { startPostgres } from './postgres';
import { startStandIns } from './stand-ins';
import { startWsProxy } from './ws-proxy';

/** Secrets generated once per data folder and kept in `${dataDir}/secrets.json`. */
export type LocalSecrets = GeneratedSecrets;

/** Options for {@link startLocalServices}. */
export interface LocalServicesOptions {
  /** Where the Worker will answer, e.g. `http://127.0.0.1:8787` (PUBLIC_BASE_URL, PUBLIC_AUTH_URL). */
  baseUrl: string;
  /** Folder for everything the services keep (an existing, absolute path). */
  dataDir: string;
  /** Worker variables; they override everything else, generated secrets included. */
  env?: Record<string, string>;
  /** Milliseconds every SQL-over-HTTP request waits before its answer (TETHER_SQL_RTT_MS, else 0). */
  sqlRttMs?: number;
  /** Run the local Google and GitHub sign-in stand-in for providers whose endpoints are not given. */
  signInStandIn?: boolean;
  /** Flush PostgreSQL's writes to disk (postgres.ts `durable`); default true, false for throwaway test stacks. */
  durable?: boolean;
}

/** Running local services and the Worker variables that reach them. */
export interface LocalServices {
  operatorToken: string;
  /** Superuser URL of the cluster (the stack's own setup and tests' inspection only). */
  adminUrl: string;
  /** URL of `tether_admin`, the non-superuser admin of customer databases (CUSTOMER_DB_ADMIN_URL). */
  customerAdminUrl: string;
  /** URL of the migrated metadata database (DATABASE_URL). */
  metadataUrl: string;
  pgPort: number;
  /** `127.0.0.1:<port>/v1` (NEON_WS_PROXY). */
  wsProxyUrl: string;
  /** The complete variable set a Worker runs with. */
  env: Record<string, string>;
  /** The local Google/GitHub sign-in stand-in, when it runs. */
  signInStandInUrl?: string;
  /** Changes the wait every SQL-over-HTTP request adds. */
  setSqlRtt(ms: number): void;
  /** Metadata and cluster requests through the proxy so far: SQL-over-HTTP queries and WebSocket sessions. */
  roundTrips(): number;
  /** Stops everything started here, the last started first. */
  stop(): Promise<void>;
}

/** Variables copied from the process environment when set (see docs/contract.md §1). */
export const PASSTHROUGH_VARS = [
  'OPERATOR_TOKEN',
  'PUBLIC_BASE_URL',
  'PUBLIC_AUTH_URL',
  'GOOGLE_AUTHORIZE_URL',
  'GOOGLE_TOKEN_URL',
  'GOOGLE_JWKS_URL',
  'GOOGLE_ISSUERS',
  // Read by the stand-ins only: Google's published keys accepted beside the stand-in's (stand-ins/index.ts).
  'GOOGLE_PUBLISHED_JWKS_URL',
  'GITHUB_AUTHORIZE_URL',
  'GITHUB_TOKEN_URL',
  'GITHUB_API_URL',
  'APPLE_AUTHORIZE_URL',
  'APPLE_TOKEN_URL',
  'APPLE_JWKS_URL',
  'APPLE_ISSUER',
  'CLIENT_IP_HEADER',
  'ASSOCIATION_FILES_URL',
  'ACTIVITY_RETENTION_DAYS',
  'ALLOW_LOOPBACK_TARGETS',
  'DNS_RESOLVER_URL',
  'RUNTIME_PATCH_URL',
  'RUNTIME_PATCH_SECRET',
  'NETWORK_POLICY_URL',
  'NETWORK_POLICY_SECRET',
  'CLOUDFLARE_API_URL',
  'VERCEL_API_URL',
  'FLY_API_URL',
  'MONGODB_ADMIN_URL',
  'MONGODB_ADMIN_KEY',
  'MONGODB_PUBLIC_HOST',
  'IAM_ENDPOINT',
  'IAM_ACCESS_KEY_ID',
  'IAM_SECRET_ACCESS_KEY',
  'STORAGE_ENDPOINT',
  'STORAGE_DEFAULT_REGION',
  'RECONCILER_SWEEP_MINUTES',
] as const;

/**
 * Reads `${dataDir}/secrets.json`, creating it (mode 0600) on first use and filling in any
 * secret it lacks.
 */
export async function loadSecrets(dataDir: string): Promise<LocalSecrets> {
  const file = join(dataDir, 'secrets.json');
  let stored: Partial<LocalSecrets> = {};
  try {
    stored = JSON.parse(await readFile(file, 'utf8')) as Partial<LocalSecrets>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`cannot read ${file}: ${String(err)}`);
  }
  const fresh = generateSecrets();
  // Only the secrets Tether still needs: a data folder from before keeps a retired one (AUTH_SIGNING_JWK) on disk, unused.
  const secrets: LocalSecrets = {
    OPERATOR_TOKEN: stored.OPERATOR_TOKEN ?? fresh.OPERATOR_TOKEN,
    ENCRYPTION_KEYS: stored.ENCRYPTION_KEYS ?? fresh.ENCRYPTION_KEYS,
  };
  if (Object.keys(secrets).some((key) => !(key in stored))) {
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, file);
  }
  return secrets;
}

/** The {@link PASSTHROUGH_VARS} this process has, non-empty. */
export function fromProcessEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSTHROUGH_VARS) {
    const value = process.env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/**
 * Starts PostgreSQL, the WebSocket proxy, the metadata migrations, the stand-ins and the network
 * policy receiver. If a later step fails, the earlier ones are stopped again.
 */
export async function startLocalServices(opts: LocalServicesOptions): Promise<LocalServices> {
  const { dataDir } = opts;
  const cleanups: Array<() => Promise<void>> = [];
  const unwind = async (): Promise<void> => {
    for (let step = cleanups.pop(); step !== undefined; step = cleanups.pop()) {
      await step().catch(() => undefined);
    }
  };

  try {
    const secrets = await loadSecrets(dataDir);
    const pg = await startPostgres({ dataDir, durable: opts.durable });
    cleanups.push(() => pg.stop());
    const sqlDelayMs = opts.sqlRttMs ?? Number(process.env.TETHER_SQL_RTT_MS || 0);
    if (!(Number.isFinite(sqlDelayMs) && sqlDelayMs >= 0))
      throw new Error('TETHER_SQL_RTT_MS: milliseconds, 0 or more');
    const proxy = await startWsProxy({ targetPort: pg.port, sqlDelayMs });
    cleanups.push(() => proxy.stop());
    const metadataUrl = await migrateMetadata(pg.adminUrl);
    const customerAdminUrl = await prepareClusterAdmin(pg.adminUrl, dataDir, METADATA_DATABASE);
    const standIns = await startStandIns(
      dataDir,
      { ...fromProcessEnv(), ...opts.env },
      { signIn: opts.signInStandIn ?? false },
    );
    cleanups.push(() => standIns.stop());

    // No network of its own to tell: the stack applies the principals' host rules itself.
    const given = { ...fromProcessEnv(), ...opts.env };
    const policyEnv: Record<string, string> = {};
    if (!given.NETWORK_POLICY_URL) {
      const receiver = await startNetworkPolicyReceiver({
        pgDir: join(dataDir, 'pg'),
        superuserUrl: pg.adminUrl,
        stateFile: join(dataDir, 'network-policies.json'),
      });
      cleanups.push(() => receiver.stop());
      policyEnv.NETWORK_POLICY_URL = receiver.url;
      policyEnv.NETWORK_POLICY_SECRET = receiver.secret;
    }

    const env: Record<string, string> = {
      ...secrets,
      PUBLIC_BASE_URL: opts.baseUrl,
      PUBLIC_AUTH_URL: opts.baseUrl,
      // The embedded cluster lets its admin set this (cluster-admin.ts).
      CUSTOMER_DB_TEMP_FILE_LIMIT: '1GB',
      // Local receivers listen on loopback; a deployed service sends webhooks only to public hosts.
      ALLOW_LOOPBACK_TARGETS: 'true',
      ...fromProcessEnv(),
      DATABASE_URL: metadataUrl,
      CUSTOMER_DB_ADMIN_URL: customerAdminUrl,
      NEON_WS_PROXY: proxy.url,
      NEON_HTTP_ENDPOINT: proxy.httpEndpoint,
      ...standIns.env,
      ...policyEnv,
      ...opts.env,
    };

    let stopped: Promise<void> | undefined;
    return {
      operatorToken: env.OPERATOR_TOKEN ?? secrets.OPERATOR_TOKEN,
      adminUrl: pg.adminUrl,
      customerAdminUrl,
      metadataUrl,
      pgPort: pg.port,
      wsProxyUrl: proxy.url,
      env,
      ...(standIns.signInUrl ? { signInStandInUrl: standIns.signInUrl } : {}),
      setSqlRtt: (ms) => proxy.setSqlDelay(ms),
      roundTrips: () => proxy.roundTrips(),
      stop() {
        stopped ??= unwind();
        return stopped;
      },
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
