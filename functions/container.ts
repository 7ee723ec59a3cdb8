/**
 * The composition root: the one place the outside systems' adapters (each engine's and kind's,
 * through the registry), the Durable Object clients and the receivers are built, from the environment checked once, and the one place a
 * request's context is put together from them ({@link openRequest}). The Worker's `fetch` (one
 * middleware, request-scope.ts), `queue` and `scheduled` all get their
 * dependencies here.
 */
import type { Pool } from '@neondatabase/serverless';
import { createDb, createHttpDb, createPool, type Db, type HttpDb } from '../db/client';
import type { Adapters, Receivers } from './adapters';
import { type CodeStore, DurableObjectCodeStore } from './adapters/code-store';
import { DnsOverHttpsResolver } from './adapters/host-resolver';
import { DurableObjectRateLimiter, type RateLimiter } from './adapters/rate-limiter';
import { SignedHttpReceiver } from './adapters/receiver';
import { loadBindings } from './bindings';
import type { Bindings, Config } from './config';
import type { ProvisioningMessage } from './domain/queue-messages';
import { buildAdapters, loadConfig } from './kinds/registry';
import { log } from './lib/logger';
import { type Clock, type RequestContext, systemClock } from './request-context';
import type { ActivitySource } from './use-cases/activity/record';

/** The provisioning queue's producer. */
export type ProvisioningQueue = Queue<ProvisioningMessage>;

/** Everything a route, a queue handler or the reconciler reaches outside its own code. */
export interface Dependencies {
  config: Config;
  adapters: Adapters;
  receivers: Receivers;
  /** One-time codes and provider sign-in state (OneTimeCodes objects). */
  codes: CodeStore;
  /** Rate counters (RateCounter objects). */
  rateLimiter: RateLimiter;
  queue: ProvisioningQueue;
  /** Where use cases read the time. */
  clock: Clock;
}

/** What a test may set in the Worker it builds (worker.ts buildWorker): the clock its use cases read. */
export interface WorkerOptions {
  clock?: Clock;
  /** How long a queue batch waits on one delivery (ms; queues/consumer.ts MESSAGE_TIME_BUDGET_MS by default). */
  queueBudgetMs?: number;
  /** The queue's timer for that budget: resolves once `ms` passed (a test's own clock; real timers by default). */
  queueTimer?: (ms: number) => Promise<void>;
}

/** How long the reconciler's admin statements wait for a lock: one stalled item must cost little. */
export const RECONCILER_LOCK_TIMEOUT = '1s';

/** the dependencies of the last environment built for. */
let cached: { env: Bindings; deps: Dependencies } | undefined;

/**
 * Builds the dependencies from the Worker's environment. Throws an EnvironmentError naming every
 * missing or malformed variable, secret or binding (answered as 500 BAD_ENVIRONMENT).
 */
export function buildDependencies(env: Bindings, options: WorkerOptions = {}): Dependencies {
  const clock = options.clock ?? systemClock;
  // Built once per environment (an isolate keeps its `env`), like the config it is built from:
  // every part is stateless, so requests share them and none pays for building them again.
  if (cached?.env === env && cached.deps.clock === clock) return cached.deps;
  const config = loadConfig(env);
  const bindings = loadBindings(env);
  const deps: Dependencies = {
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
  cached = { env, deps };
  return deps;
}

/** The dependencies the reconciler's tick and its queued slices run with: admin sessions with a short lock timeout. */
export function buildReconcilerDependencies(env: Bindings, options: WorkerOptions = {}): Dependencies {
  const deps = buildDependencies(env, options);
  if (reconcilerCached?.base === deps) return reconcilerCached.deps;
  const built = { ...deps, adapters: buildAdapters(deps.config, { lockTimeout: RECONCILER_LOCK_TIMEOUT }) };
  reconcilerCached = { base: deps, deps: built };
  return built;
}

let reconcilerCached: { base: Dependencies; deps: Dependencies } | undefined;

/** A request's context and the closing of what it opened. */
export interface RequestScope {
  ctx: RequestContext;
  /** Whether the request opened a pool (which {@link RequestScope.close} ends). */
  opened(): boolean;
  /** Ends the request's pool, if one was opened. */
  close(): Promise<void>;
}

/**
 * The context of one request, built once from the Worker's dependencies: the database handles open
 * on first use (most requests need only the HTTP one, many none), and `activity` is asked for
 * when a service records a change, by when the caller is known.
 */
export function openRequest(deps: Dependencies, activity: () => ActivitySource): RequestScope {
  const { config } = deps;
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
    adapters: deps.adapters,
    receivers: deps.receivers,
    queue: deps.queue,
    codes: deps.codes,
    rateLimiter: deps.rateLimiter,
    clock: deps.clock,
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
