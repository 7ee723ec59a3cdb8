/**
 * Declared access: a route states what it needs of its caller (its role on the path's project,
 * or an account of its own; whether project API keys may call it) and the reads it makes
 * (`Read<T>`, use-cases/caller/declared-reads.ts: a query not yet sent and how its answer
 * becomes what the handler takes). The route's middleware opens the request's caller admission
 * there, which sends the caller's lookup and those reads in one round trip, admits the caller
 * and decodes each answer; the handler gets typed values.
 *
 * Reads that need only the path run in the middleware, before the request is validated. Reads
 * built from the validated input run when the handler asks for them with that input
 * (`run(c, input)`), still with the caller's lookup; a request that fails validation (malformed
 * JSON included) first has its caller admitted, and `beforeInvalid`'s path reads decoded, so
 * its 401, 403 and 404 come before its 400. A handler that retries its write runs its reads
 * again: the caller is read only the first time.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../app-env';
import type { Role } from '../domain/roles';
import { routeGroup } from '../lib/openapi';
import type { CallerNeed } from '../use-cases/caller/admission';
import { SESSION_COOKIE } from '../use-cases/caller/api-caller';
import {
  type CallerAdmission,
  openAdmission,
  type Read,
  type ReadScope,
  type Reads,
} from '../use-cases/caller/declared-reads';
import type { ApiKeyCapabilities, Project } from '../use-cases/caller/project-access';
import { requestContext } from './shared';

/** What a route needs of its caller (see {@link CallerNeed}); `writes` defaults to "not a GET". */
export interface Access {
  role: Role | 'account' | 'operator';
  keys?: (capabilities: ApiKeyCapabilities) => boolean;
  keyRefusal?: string;
  writes?: boolean;
}

/** Who the handler serves: the project the path names, or the calling account. */
type Who<A extends Access> = A['role'] extends 'account'
  ? { accountId: string }
  : A['role'] extends 'operator'
    ? Record<never, never>
    : { project: Project; projectId: string; role: Role | null };

/** The values of reads `R`, by name, with who the caller reaches. */
export type ReadValues<R extends Reads, A extends Access = Access> = {
  [K in keyof R]: R[K] extends Read<infer T> ? T : never;
} & Who<A>;

/** The request's credential: its Bearer token, else the console's session cookie. */
export function bearerOf(c: Context<AppEnv>): string | undefined {
  const header = c.req.header('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] ?? '\u0000malformed';
  }
  return getCookie(c, SESSION_COOKIE);
}

/** Marks a route that reads and admits its own caller; the API's middleware leaves it alone. */
const declaredCaller: MiddlewareHandler<AppEnv> = (_c, next) => next();

/** Whether the route the request matched declares its caller's access. */
export const declaresCaller = (c: Context<AppEnv>): boolean =>
  matchedRoutes(c).some((r) => r.handler === declaredCaller);

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** Whether the body validator will refuse the body as malformed JSON, before any hook runs. */
async function malformedJson(c: Context<AppEnv>): Promise<boolean> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || !JSON_TYPE.test(type)) return false;
  return c.req.json().then(
    () => false,
    () => true,
  );
}

/** The middleware that opens a route's caller admission, running `pathReads` when given. */
function admissionMiddleware(
  access: Access,
  pathReads?: (scope: ReadScope) => Reads,
  beforeInvalid?: (scope: ReadScope) => Reads,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const need: CallerNeed = { ...access, writes: access.writes ?? !['GET', 'HEAD'].includes(c.req.method) };
    const admission = await openAdmission(requestContext(c), {
      need,
      token: bearerOf(c),
      path: c.req.param(),
      onCaller: (caller) => c.set('principal', caller.principal),
      beforeInvalid,
    });
    c.set('admission', admission);
    if (pathReads) c.set('declaredReads', await admission.run(pathReads(admission.scope)));
    else if (await malformedJson(c)) await admission.admit();
    return next();
  };
}

/** A route's declared reads of its path: its middleware, and its handler's access to their values. */
export interface DeclaredReads<R extends Reads, A extends Access> {
  readonly middleware: MiddlewareHandler<AppEnv>[];
  /** The reads' values, once the middleware ran. */
  of(c: Context<AppEnv>): ReadValues<R, A>;
}

/**
 * Declares what a route needs of its caller and the reads of its path it makes (none when
 * `build` is absent); they run in its middleware, before its input is validated.
 */
export function declareReads<const A extends Access, R extends Reads = Record<never, never>>(
  access: A,
  build?: (scope: ReadScope) => R,
): DeclaredReads<R, A> {
  return {
    middleware: [declaredCaller, admissionMiddleware(access, build ?? (() => ({})))],
    of: (c) => c.get('declaredReads') as ReadValues<R, A>,
  };
}

/** A route's declared reads of its validated input: its middleware, and the handler's run of them. */
export interface DeclaredInputReads<I, R extends Reads, A extends Access> {
  readonly middleware: MiddlewareHandler<AppEnv>[];
  /** Sends the reads `input` makes (with the caller's lookup the first time) and returns their values. */
  run(c: Context<AppEnv>, input: I): Promise<ReadValues<R, A>>;
}

/**
 * Declares what a route needs of its caller and the reads it makes of its validated input;
 * `beforeInvalid` names the reads of its path whose 404 an invalid request still gets first.
 */
export function declareInputReads<const A extends Access, I, R extends Reads>(
  access: A,
  build: (scope: ReadScope, input: I) => R,
  beforeInvalid?: (scope: ReadScope) => Reads,
): DeclaredInputReads<I, R, A> {
  return {
    middleware: [declaredCaller, admissionMiddleware(access, undefined, beforeInvalid)],
    run: async (c, input) => {
      const admission = c.get('admission') as CallerAdmission;
      return (await admission.run(build(admission.scope, input))) as ReadValues<R, A>;
    },
  };
}

/** The route group of routes with declared access: a request failing validation is admitted first. */
export const declaredRoutes = () => routeGroup<AppEnv>((c) => c.get('admission')?.admit());
