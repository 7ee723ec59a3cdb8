/**
 * The composition root: the one place the outside systems' adapters, the Durable Object
 * clients and the receivers are built, from the environment checked once, and the one place a
 * request's context is put together from them ({@link openRequest}). The Worker's `fetch` (one
 * middleware, request-scope.ts), `queue` and `scheduled` all get their
 * services here.
 */
import type { Pool } from '@neondatabase/serverless';
import { createDb, createHttpDb, createPool, type Db, type HttpDb } from '../db/client';
import type { Adapters, Receivers } from './adapters';
import { type CodeStore, DurableObjectCodeStore } from './adapters/code-store';
import { DnsOverHttpsResolver } from './adapters/host-resolver';
import { AtlasMongoAdmin } from './adapters/mongodb-admin';
import { ClusterPostgresAdmin } from './adapters/postgres-admin';
import { DurableObjectRateLimiter, type RateLimiter } from './adapters/rate-limiter';
import { SignedHttpReceiver } from './adapters/receiver';
import { AwsS3Admin } from './adapters/s3-admin';
import { type Bindings, type Config, loadBindings, loadConfig } from './config';
import type { ProvisioningMessage } from './domain/queue-messages';
import { log } from './lib/logger';
import { type Clock, type RequestContext, systemClock } from './request-context';
import type { ActivitySource } from './services/activity/record';

/** The provisioning queue's producer. */
export type ProvisioningQueue = Queue<ProvisioningMessage>;

/** Everything a route, a queue handler or the reconciler reaches outside its own code. */
export interface Services {
  config: Config;
  adapters: Adapters;
  receivers: Receivers;
  /** One-time codes and provider sign-in state (OneTimeCodes objects). */
  codes: CodeStore;
  /** Rate counters (RateCounter objects). */
  rateLimiter: RateLimiter;
  queue: ProvisioningQueue;
  /** Where services read the time. */
  clock: Clock;
}

/** What a test may set in the Worker it builds (worker.ts buildWorker): the clock its services read. */
export interface WorkerOptions {
  clock?: Clock;
  /** How long a queue batch waits on one delivery (ms; queues/consumer.ts MESSAGE_TIME_BUDGET_MS by default). */
  queueBudgetMs?: number;
  /** The queue's timer for that budget: resolves once `ms` passed (a test's own clock; real timers by default). */
  queueTimer?: (ms: number) => Promise<void>;
}

/** How long the reconciler's admin statements wait for a lock: one stalled item must cost little. */
export const RECONCILER_LOCK_TIMEOUT = '1s';

/** The outside systems' adapters for `config` (admin sessions waiting at most `lockTimeout` for a lock). */
function buildAdapters(config: Config, lockTimeout?: string): Adapters {
  const { mongodbAdmin, iam } = config;
  return {
    postgres: new ClusterPostgresAdmin(
      config.CUSTOMER_DB_ADMIN_URL,
      config.NEON_WS_PROXY,
      {
        role: config.CUSTOMER_DB_ROLE_CONNECTION_LIMIT,
        database: config.CUSTOMER_DB_DATABASE_CONNECTION_LIMIT,
        tempFileLimit: config.CUSTOMER_DB_TEMP_FILE_LIMIT ?? null,
      },
      lockTimeout,
    ),
    mongodb: mongodbAdmin && new AtlasMongoAdmin(mongodbAdmin.url, mongodbAdmin.key),
    s3:
      iam &&
      new AwsS3Admin({
        accessKeyId: iam.accessKeyId,
        secretAccessKey: iam.secretAccessKey,
        iamEndpoint: config.IAM_ENDPOINT,
        storageEndpoint: config.STORAGE_ENDPOINT,
      }),
  };
}

/** The services of the last environment built for. */
let cached: { env: Bindings; services: Services } | undefined;

/**
 * Builds the services from the Worker's environment. Throws an EnvironmentError naming every
 * missing or malformed variable, secret or binding (answered as 500 BAD_ENVIRONMENT).
 */
export function buildServices(env: Bindings, options: WorkerOptions = {}): Services {
  const clock = options.clock ?? systemClock;
  // Built once per environment (an isolate keeps its `env`), like the config it is built from:
  // every part is stateless, so requests share them and none pays for building them again.
  if (cached?.env === env && cached.services.clock === clock) return cached.services;
  const config = loadConfig(env);
  const bindings = loadBindings(env);
  const services: Services = {
    config,
    adapters: buildAdapters(config),
    receivers: {
      runtimePatch: config.runtimePatch && new SignedHttpReceiver(config.runtimePatch),
      networkPolicy: config.networkPolicy && new SignedHttpReceiver(config.networkPolicy),
      platforms: {
        cloudflare: config.CLOUDFLARE_API_URL,
        vercel: config.VERCEL_API_URL,
        fly: config.FLY_API_URL,
        webhookHosts: {
          allowLoopback: config.ALLOW_LOOPBACK_TARGETS,
          resolver: new DnsOverHttpsResolver(config.DNS_RESOLVER_URL),
        },
      },
      invitations: config.invitationWebhook && new SignedHttpReceiver(config.invitationWebhook),
    },
    codes: new DurableObjectCodeStore(bindings.ONE_TIME_CODES),
    rateLimiter: new DurableObjectRateLimiter(bindings.RATE_COUNTERS),
    queue: bindings.PROVISIONING,
    clock,
  };
  cached = { env, services };
  return services;
}

/** The services the reconciler's tick and its queued slices run with: admin sessions with a short lock timeout. */
export function buildReconcilerServices(env: Bindings, options: WorkerOptions = {}): Services {
  const services = buildServices(env, options);
  if (reconcilerCached?.base === services) return reconcilerCached.services;
  const built = { ...services, adapters: buildAdapters(services.config, RECONCILER_LOCK_TIMEOUT) };
  reconcilerCached = { base: services, services: built };
  return built;
}

let reconcilerCached: { base: Services; services: Services } | undefined;

/** A request's context and the closing of what it opened. */
export interface RequestScope {
  ctx: RequestContext;
  /** Whether the request opened a pool (which {@link RequestScope.close} ends). */
  opened(): boolean;
  /** Ends the request's pool, if one was opened. */
  close(): Promise<void>;
}

/**
 * The context of one request, built once from the Worker's services: the database handles open
 * on first use (most requests need only the HTTP one, many none), and `activity` is asked for
 * when a service records a change, by when the caller is known.
 */
export function openRequest(services: Services, activity: () => ActivitySource): RequestScope {
  const { config } = services;
  let handle: { db: Db; pool: Pool } | undefined;
  let http: HttpDb | undefined;
  const ctx: RequestContext = {
    get db() {
      if (!handle) {
        const pool = createPool(config.DATABASE_URL, config.NEON_WS_PROXY);
        handle = { db: createDb(pool), pool };
      }
      return handle.db;
    },
    get http() {
      http ??= createHttpDb(config.DATABASE_URL, config.NEON_HTTP_ENDPOINT);
      return http;
    },
    config,
    adapters: services.adapters,
    receivers: services.receivers,
    queue: services.queue,
    codes: services.codes,
    rateLimiter: services.rateLimiter,
    clock: services.clock,
    log,
    get activity() {
      return activity();
    },
  };
  return {
    ctx,
    opened: () => handle !== undefined,
    close: async () => {
      await handle?.pool.end().catch(() => undefined);
    },
  };
}
