/** The Hono environment shared by every route: bindings, parsed config, lazy database, caller. */
import type { Context } from 'hono';
import type { Db, HttpDb } from '../db/client';
import type { Bindings, Config } from './config';
import type { RequestContext } from './request-context';
import type { PendingAdmission } from './use-cases/caller/admission';
import type { Membership, Principal } from './use-cases/caller/api-caller';
import type { CountedExchange } from './use-cases/sign-in/exchange';

export interface AppVariables {
  /** What the request's use cases take first, built once for it (container.ts openRequest). */
  ctx: RequestContext;
  config: Config;
  requestId: string;
  principal: Principal;
  /** The caller's membership in the project the path names, when read with the caller. */
  membership?: Membership;
  /** The route's declared caller admission (routes/declared-reads.ts), once its middleware opened it. */
  admission?: PendingAdmission;
  /** The values of the route's declared reads (routes/declared-reads.ts), by name. */
  declaredReads?: Record<string, unknown>;
  /** The code exchange's count, with its code redeemed when the body could be read (oauth/index.ts). */
  countedExchange?: CountedExchange;
}

/** The type parameter of every Hono app and route of the Worker. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: AppVariables;
}

/** The request's database, opened on first use and closed when the response is done. */
export const getDb = (c: Context<AppEnv>): Db => c.get('ctx').db;

/**
 * The request's one-shot query handle (HTTP, no connection set-up). Use it for reads and
 * single statements; use `getDb` for transactions.
 */
export const getHttpDb = (c: Context<AppEnv>): HttpDb => c.get('ctx').http;
