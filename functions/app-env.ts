/** The Hono environment shared by every route: bindings, parsed config, the request's context, its caller. */
import type { ExecutionContext as HonoExecutionContext } from 'hono';
import type { Bindings, Config } from './config';
import type { RequestContext } from './request-context';
import type { Principal } from './use-cases/caller/api-caller';
import type { CallerAdmission } from './use-cases/caller/declared-reads';
import type { CountedExchange } from './use-cases/sign-in/exchange';

export interface AppVariables {
  /** What the request's use cases take first, built once for it (container.ts openRequest). */
  ctx: RequestContext;
  config: Config;
  requestId: string;
  principal: Principal;
  /** The route's caller admission (use-cases/caller/declared-reads.ts), once its declared access's middleware opened it. */
  admission?: CallerAdmission;
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

/** A Worker's fetch handler (also called in process, by the console, with Hono's execution context). */
export type Fetch = (
  request: Request,
  env: Bindings,
  ctx?: HonoExecutionContext,
) => Response | Promise<Response>;
