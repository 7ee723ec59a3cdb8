/** The Hono environment shared by every route: bindings, parsed config, lazy database, caller. */
import type { Pool } from '@neondatabase/serverless';
import type { Context } from 'hono';
import { createDb, createHttpDb, createPool, type Db, type HttpDb } from '../db/client';
import type { Bindings, Config } from './config';
import type { Services } from './container';
import type { CallerRead, Membership, Principal } from './services/caller/api-caller';
import type { CountedExchange } from './services/sign-in/exchange';

export interface AppVariables {
  /** Adapters, Durable Object clients and receivers, built once per request (container.ts). */
  services: Services;
  config: Config;
  requestId: string;
  principal: Principal;
  /** The caller's membership in the project the path names, when read with the caller. */
  membership?: Membership;
  /** A read's caller lookup, left for its handler to send with its own query (routes/shared.ts). */
  pendingCaller?: Extract<CallerRead, { query: unknown }>;
  /** The values of the route's declared reads (routes/reads.ts), by name. */
  declaredReads?: Record<string, unknown>;
  /** The code exchange's count, with its code redeemed when the body could be read (oauth/index.ts). */
  countedExchange?: CountedExchange;
}

/** The type parameter of every Hono app and route of the Worker. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: AppVariables & { dbHandle?: { db: Db; pool: Pool }; httpDb?: HttpDb };
}

/** The request's database, opened on first use and closed when the response is done. */
export function getDb(c: Context<AppEnv>): Db {
  let handle = c.get('dbHandle');
  if (!handle) {
    const config = c.get('config');
    const pool = createPool(config.DATABASE_URL, config.NEON_WS_PROXY);
    handle = { db: createDb(pool), pool };
    c.set('dbHandle', handle);
  }
  return handle.db;
}

/**
 * The request's one-shot query handle (HTTP, no connection set-up). Use it for reads and
 * single statements; use `getDb` for transactions.
 */
export function getHttpDb(c: Context<AppEnv>): HttpDb {
  let db = c.get('httpDb');
  if (!db) {
    const config = c.get('config');
    db = createHttpDb(config.DATABASE_URL, config.NEON_HTTP_ENDPOINT);
    c.set('httpDb', db);
  }
  return db;
}

/** Ends the request's pool, if one was opened. */
export async function closeDb(c: Context<AppEnv>): Promise<void> {
  const handle = c.get('dbHandle');
  if (handle) await handle.pool.end().catch(() => undefined);
}
