/**
 * The whole local service: embedded PostgreSQL, the WebSocket proxy the Neon driver needs,
 * the metadata migrations and the Worker under Miniflare.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { prepareClusterAdmin } from './cluster-admin';
import { METADATA_DATABASE, migrateMetadata } from './migrate';
import { startNetworkPolicyReceiver } from './network-policy-receiver';
import { startPostgres } from './postgres';
import { type GeneratedSecrets, generateSecrets } from './secrets';
import { startStandIns } from './stand-ins';
import { type LocalWorker, startWorker } from './worker';
import { startWsProxy } from './ws-proxy';

/** Secrets generated once per data folder and kept in `${dataDir}/secrets.json`. */
export type LocalSecrets = GeneratedSecrets;

/** Options for {@link startLocalStack}. */
export interface LocalStackOptions {
  /** Port the Worker listens on (127.0.0.1). */
  port: number;
  /** Folder for everything the stack keeps; an empty folder gives a fresh service. */
  dataDir: string;
  /** Worker variables; they override everything else, generated secrets included. */
  env?: Record<string, string>;
  /** Fire the Worker's cron every 60 seconds (Miniflare never does by itself). Default true. */
  cron?: boolean;
  /** Where the Worker's console goes; this process's output when omitted. */
  workerLogFile?: string;
  /** Worker entry point, functions/index.ts by default. */
  entry?: string;
  /**
   * Milliseconds every SQL-over-HTTP request waits before its answer, standing for the distance
   * from the edge to the database; TETHER_SQL_RTT_MS, else 0.
   */
  sqlRttMs?: number;
  /**
   * Run the local Google and GitHub sign-in stand-in for providers whose endpoints are not
   * given (what `npm start` does). Default false.
   */
  signInStandIn?: boolean;
  /** Open workerd's V8 inspector on this port (CPU profiles: scripts/bench/profile.ts). */
  inspectorPort?: number;
}

/** A running local stack. */
export interface LocalStack {
  /** Where the Worker answers, e.g. `http://127.0.0.1:8787` (`{base_url}`). */
  baseUrl: string;
  /** Where the auth routes answer (`{auth_url}`): the same Worker. */
  authUrl: string;
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
  /** The complete variable set the Worker runs with. */
  env: Record<string, string>;
  /** The local Google/GitHub sign-in stand-in, when it runs. */
  signInStandInUrl?: string;
  worker: LocalWorker;
  /** Changes the wait every SQL-over-HTTP request adds (see {@link LocalStackOptions.sqlRttMs}). */
  setSqlRtt(ms: number): void;
  /** Metadata and cluster requests through the proxy so far: SQL-over-HTTP queries and WebSocket sessions. */
  roundTrips(): number;
  /** Stops the Worker, the proxy and PostgreSQL, in that order; safe to call more than once. */
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

function fromProcessEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSTHROUGH_VARS) {
    const value = process.env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/**
 * Starts PostgreSQL, the WebSocket proxy, the metadata migrations and the Worker on
 * `http://127.0.0.1:${port}`. If a later step fails, the earlier ones are stopped again.
 */
export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true });
  const cleanups: Array<() => Promise<void>> = [];
  const unwind = async (): Promise<void> => {
    for (let step = cleanups.pop(); step !== undefined; step = cleanups.pop()) {
      await step().catch(() => undefined);
    }
  };

  try {
    const secrets = await loadSecrets(dataDir);
    const pg = await startPostgres({ dataDir });
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

    const local = `http://127.0.0.1:${opts.port}`;
    const env: Record<string, string> = {
      ...secrets,
      PUBLIC_BASE_URL: local,
      PUBLIC_AUTH_URL: local,
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
    const worker = await startWorker({
      port: opts.port,
      env,
      persistDir: join(dataDir, 'worker'),
      entry: opts.entry,
      logFile: opts.workerLogFile,
      inspectorPort: opts.inspectorPort,
    });
    cleanups.push(() => worker.stop());

    let timer: NodeJS.Timeout | undefined;
    if (opts.cron ?? true) {
      let running = false;
      timer = setInterval(() => {
        if (running) return;
        running = true;
        worker
          .runScheduled()
          .catch((err: unknown) => console.error('[tether] scheduled run failed:', err))
          .finally(() => {
            running = false;
          });
      }, 60_000);
      timer.unref();
    }
    cleanups.push(async () => clearInterval(timer));

    let stopped: Promise<void> | undefined;
    return {
      baseUrl: worker.url,
      authUrl: worker.url,
      operatorToken: env.OPERATOR_TOKEN ?? secrets.OPERATOR_TOKEN,
      adminUrl: pg.adminUrl,
      customerAdminUrl,
      metadataUrl,
      pgPort: pg.port,
      wsProxyUrl: proxy.url,
      setSqlRtt: (ms) => proxy.setSqlDelay(ms),
      roundTrips: () => proxy.roundTrips(),
      env,
      ...(standIns.signInUrl ? { signInStandInUrl: standIns.signInUrl } : {}),
      worker,
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
