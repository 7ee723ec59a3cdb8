/**
 * The one context a request's (or a job's) services take first: the metadata database (a pool
 * for transactions and the HTTP driver for one-shot statements and batches), the configuration,
 * the outside systems, the provisioning queue, and who the changes are recorded as. Routes build
 * it once per request (routes/shared.ts requestContext); services take `(ctx, input)`.
 */
import type { Db, HttpDb } from '../db/client';
import type { Adapters } from './adapters';
import type { Config } from './config';
import type { ProvisioningMessage } from './domain/queue-messages';
import type { ActivitySource } from './services/activity/record';

/** What every service of a request may reach. */
export interface RequestContext {
  /** Interactive transactions (a pool opened on first use). */
  db: Db;
  /** One-shot statements and non-interactive batches over HTTP (no connection set-up). */
  http: HttpDb;
  config: Config;
  adapters: Adapters;
  queue: Queue<ProvisioningMessage>;
  /** Who the request's changes are recorded as in the Activity record. */
  activity?: ActivitySource;
}
