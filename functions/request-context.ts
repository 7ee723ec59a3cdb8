/**
 * The one context a request's (or a job's) use cases take first: the metadata database (a pool
 * for transactions and the HTTP driver for one-shot statements and batches), the configuration,
 * the outside systems, the provisioning queue, the clock, the log, and who the changes are
 * recorded as. The composition root builds it once per request (container.ts openRequest, in
 * the request scope of the auth edge and the management app alike, request-scope.ts; routes read it with
 * routes/shared.ts requestContext), the queue consumer and the reconciler once per batch or
 * tick ({@link jobContext}). A use case takes `(ctx, input)`; only the pieces a read or a batch
 * is built from (a `…Query(db)` and its decoder, pure rules) take the handle they build on.
 */
import type { Db, HttpDb } from '../db/client';
import type { Adapters, Receivers } from './adapters';
import type { CodeStore } from './adapters/code-store';
import type { RateLimiter } from './adapters/rate-limiter';
import type { Config } from './config';
import type { ProvisioningMessage } from './domain/queue-messages';
import { log } from './lib/logger';
import type { ActivitySource } from './use-cases/activity/record';

/** Where a service reads the time: the system's, or one a test sets. */
export interface Clock {
  /** The current time. */
  now(): Date;
}

/** The system's clock. */
export const systemClock: Clock = { now: () => new Date() };

/** The Worker's log (each line tagged with the request or message it belongs to). */
export type Logger = typeof log;

/** What every service of a request may reach. */
export interface RequestContext {
  /** Interactive transactions (a pool opened on first use). */
  db: Db;
  /** One-shot statements and non-interactive batches over HTTP (no connection set-up). */
  http: HttpDb;
  config: Config;
  adapters: Adapters;
  /** Where deliveries go (live patches, network policies, invitations). */
  receivers: Receivers;
  queue: Queue<ProvisioningMessage>;
  /** One-time codes and provider sign-in state (OneTimeCodes objects). */
  codes: CodeStore;
  /** Rate counters (RateCounter objects). */
  rateLimiter: RateLimiter;
  clock: Clock;
  log: Logger;
  /** Who the request's changes are recorded as in the Activity record. */
  activity: ActivitySource;
}

/**
 * The context of a queue message or a reconciler tick: the same, with one pool for every
 * statement (a job reads with the pool it writes with), so `http` may be absent, and no caller
 * (its changes are recorded as `system` where they are recorded at all).
 */
export type JobContext = Omit<RequestContext, 'http' | 'activity'> & {
  http?: HttpDb;
  activity?: ActivitySource;
};

/** The context of a job on `db` with the Worker's dependencies (container.ts). */
export function jobContext<S extends Omit<JobContext, 'db' | 'log' | 'activity'>>(
  deps: S,
  db: Db,
): S & JobContext {
  return { ...deps, db, log };
}

/**
 * `ctx` with its changes recorded as `activity` (a request whose credential is in its body, not
 * its caller). Not a spread: a request's database handles are opened on first use, by getters.
 */
export function recordedAs<C extends JobContext>(
  ctx: C,
  activity: ActivitySource,
): C & { activity: ActivitySource } {
  return Object.create(ctx, { activity: { value: activity, enumerable: true } });
}
