/** The Hono environment shared by every route: bindings, parsed config, lazy database, caller. */
import type { Pool } from '@neondatabase/serverless';
import type { Context } from 'hono';
import { createDb, createPool, createReadDb, type Db, type ReadDb } from '../db/client';
import type { Bindings, Config } from './env';
import type { CountedExchange } from './services/auth/exchange';
import type { Membership, Principal } from './services/principal';

export interface AppVariables {
  config: Config;
  requestId: string;
  principal: Principal;
  /** The caller's membership in the project the path names, when read with the caller. */
  membership?: Membership;
  /** The code exchange's count, with its code redeemed when the body could be read (oauth/index.ts). */
  countedExchange?: CountedExchange;
}

/** The type parameter of every Hono app and route of the Worker. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: AppVariables & { dbHandle?: { db: Db; pool: Pool }; readDb?: ReadDb };
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
export function getReadDb(c: Context<AppEnv>): ReadDb {
  let db = c.get('readDb');
  if (!db) {
    const config = c.get('config');
    db = createReadDb(config.DATABASE_URL, config.NEON_HTTP_ENDPOINT);
    c.set('readDb', db);
  }
  return db;
}

/** Ends the request's pool, if one was opened. */
export async function closeDb(c: Context<AppEnv>): Promise<void> {
  const handle = c.get('dbHandle');
  if (handle) await handle.pool.end().catch(() => undefined);
}
