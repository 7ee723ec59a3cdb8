/**
 * Declared access: a route states what it needs of its caller (its role on the path's project,
 * or an account of its own; whether project API keys may call it) and the reads it makes
 * (`Read<T>`: a query not yet sent and how its answer becomes what the handler takes). The
 * route's middleware sends the caller's lookup and those reads in one round trip, admits the
 * caller (use-cases/caller/admission.ts: 401, 403 of a caller the route never takes, 404 of the
 * project, 403 of the role), then decodes each answer (a read's own 404 comes after the
 * caller's refusals) and hands the handler typed values.
 *
 * Reads that need only the path run in the middleware, before the request is validated. Reads
 * built from the validated input run when the handler asks for them with that input
 * (`run(c, input)`), still with the caller's lookup; a request that fails validation (malformed
 * JSON included) first has its caller admitted, and `beforeInvalid`'s path reads decoded, so
 * its 401, 403 and 404 come before its 400. A handler that retries its write runs its reads
 * again: the caller is read only the first time.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { matchedRoutes } from 'hono/route';
import { type AppEnv, getHttpDb } from '../app-env';
import type { Role } from '../domain/roles';
import { routeGroup } from '../lib/openapi';
import { type Admitted, admitCaller, type CallerNeed } from '../use-cases/caller/admission';
import {
  type BatchQuery,
  type CallerRead,
  callerRead,
  projectIdOf,
  resolveCallerWith,
  SESSION_COOKIE,
} from '../use-cases/caller/api-caller';
import type { ApiKeyCapabilities, Project } from '../use-cases/caller/project-access';

/** A read a route declares: its queries, not yet sent, and how their answers become `T` (throwing its 404). */
export interface Read<T> {
  readonly queries: readonly BatchQuery[];
  /** `caller`: who was admitted, for a read whose 404 or 403 depends on the caller (a key naming what it read). */
  decode(answers: readonly unknown[], caller: Admitted): T;
}

/** A read of `query` whose answer (as drizzle types it) `decode` turns into the value. */
export const read = <Q extends BatchQuery, T>(
  query: Q,
  decode: (answer: Awaited<Q>, caller: Admitted) => T,
): Read<T> => ({
  queries: [query],
  decode: ([answer], caller) => decode(answer as Awaited<Q>, caller),
});

/** A read of several queries whose answers, in order, `decode` turns into the value. */
export const readMany = <T>(
  queries: readonly BatchQuery[],
  decode: (answers: readonly unknown[], caller: Admitted) => T,
): Read<T> => ({
  queries,
  decode,
});

/** A read whose value is the query's own answer. */
export const rowsRead = <Q extends BatchQuery>(query: Q): Read<Awaited<Q>> => read(query, (answer) => answer);

/** Reads by name. */
export type Reads = Record<string, Read<unknown>>;

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

/** What a route's reads are built from: the request's HTTP driver, its path's parameters, the project `:id` names and the calling account (as SQL). */
export interface ReadScope {
  http: ReturnType<typeof getHttpDb>;
  path: Record<string, string>;
  project: SQL;
  account: SQL;
}

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

/** One request's declared access: the caller's lookup until it is sent, and whether it was admitted. */
class Admission {
  admitted = false;
  constructor(
    private readonly c: Context<AppEnv>,
    private readonly need: CallerNeed,
    private readonly ref: string,
    readonly scope: ReadScope,
    private pending: Extract<CallerRead, { query: SQL }> | undefined,
    private readonly beforeInvalid?: (scope: ReadScope) => Reads,
  ) {}

  /** Sends `reads` (with the caller's lookup the first time), admits the caller and decodes them. */
  async run(reads: Reads): Promise<Record<string, unknown>> {
    const { c } = this;
    const entries = Object.entries(reads);
    const { caller, answers } = await resolveCallerWith(
      this.scope.http,
      this.pending,
      entries.flatMap(([, r]) => r.queries),
    );
    this.pending = undefined;
    if (caller) {
      c.set('principal', caller.principal);
      if (caller.membership) c.set('membership', caller.membership);
    }
    const who = await admitCaller(
      this.scope.http,
      c.get('principal'),
      this.need,
      this.ref,
      c.get('membership'),
    );
    this.admitted = true;
    const values: Record<string, unknown> = whoValues(who);
    let next = 0;
    for (const [name, r] of entries) {
      values[name] = r.decode(answers.slice(next, next + r.queries.length), who);
      next += r.queries.length;
    }
    return values;
  }

  /** Reads and admits the caller (with `beforeInvalid`'s reads) unless that is done. */
  async admit(): Promise<void> {
    if (!this.admitted) await this.run(this.beforeInvalid?.(this.scope) ?? {});
  }
}

const whoValues = (who: Admitted): Record<string, unknown> =>
  'project' in who
    ? { project: who.project, projectId: who.project.id, role: who.role }
    : 'accountId' in who
      ? { accountId: who.accountId }
      : {};

/** The middleware that opens a route's {@link Admission}, running `pathReads` when given. */
function admissionMiddleware(
  access: Access,
  pathReads?: (scope: ReadScope) => Reads,
  beforeInvalid?: (scope: ReadScope) => Reads,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const need: CallerNeed = { ...access, writes: access.writes ?? !['GET', 'HEAD'].includes(c.req.method) };
    const path: Record<string, string> = c.req.param();
    const ref = access.role === 'account' || access.role === 'operator' ? undefined : (path.id ?? '');
    const lookup = await callerRead(c.get('config'), bearerOf(c), ref);
    const http = getHttpDb(c);
    if ('resolved' in lookup) {
      // No lookup to send (no credential, the operator's): admitted or refused here and now.
      c.set('principal', lookup.resolved.principal);
      await admitCaller(http, lookup.resolved.principal, need, ref ?? '');
    }
    const pending = 'query' in lookup ? lookup : undefined;
    const account = pending ? pending.accountId : sql`null::uuid`;
    const scope: ReadScope = { http, path, project: projectIdOf(ref ?? ''), account };
    const admission = new Admission(c, need, ref ?? '', scope, pending, beforeInvalid);
    c.set('admission', admission);
    if (pathReads) c.set('declaredReads', await admission.run(pathReads(scope)));
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
      const admission = c.get('admission') as Admission;
      return (await admission.run(build(admission.scope, input))) as ReadValues<R, A>;
    },
  };
}

/** The route group of routes with declared access: a request failing validation is admitted first. */
export const declaredRoutes = () => routeGroup<AppEnv>((c) => c.get('admission')?.admit());
