/**
 * Declared reads: a route states the role its caller needs on the path's project and the reads
 * it makes (`Read<T>`: a query not yet sent and how its answer becomes what the handler takes).
 * One middleware sends the caller's lookup and those reads in one round trip, admits the caller
 * (401, 403, 404 of the project, then 403 of the role), decodes each answer (a read's own 404
 * comes after the caller's refusals) and hands the handler typed values. It runs before the
 * route's validators, so it serves routes whose reads need only the path; a route whose reads
 * need its body still calls readWithCaller from its handler.
 */
import type { SQL } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { type AppEnv, getHttpDb } from '../context';
import type { Role } from '../domain/roles';
import { type BatchQuery, projectIdOf } from '../services/caller/api-caller';
import type { ApiKeyCapabilities } from '../services/caller/project-access';
import { access, readsCaller, readWithCaller } from './shared';

/** A read a route declares: its query, not yet sent, and how its answer becomes `T` (throwing its 404). */
export interface Read<T> {
  readonly query: BatchQuery;
  decode(answer: unknown): T;
}

/** A read of `query` whose answer (as drizzle types it) `decode` turns into the value. */
export const read = <Q extends BatchQuery, T>(query: Q, decode: (answer: Awaited<Q>) => T): Read<T> => ({
  query,
  decode: (answer) => decode(answer as Awaited<Q>),
});

/** A read whose value is the query's own answer. */
export const rowsRead = <Q extends BatchQuery>(query: Q): Read<Awaited<Q>> => read(query, (answer) => answer);

/** Reads by name. */
export type Reads = Record<string, Read<unknown>>;

/** The values of reads `R`, by name, and the project the path names. */
export type ReadValues<R extends Reads> = { [K in keyof R]: R[K] extends Read<infer T> ? T : never } & {
  projectId: string;
};

/** What a route's reads are built from: the request's HTTP driver, its path's parameters and the project `:id` names (as SQL). */
export interface ReadScope {
  http: ReturnType<typeof getHttpDb>;
  path: Record<string, string>;
  project: SQL;
}

/** A route's declared reads: its middleware, and its handler's access to their values. */
export interface DeclaredReads<R extends Reads> {
  /** The route's `middleware` (the caller's lookup is left pending for it, then made with the reads). */
  readonly middleware: MiddlewareHandler<AppEnv>[];
  /** The reads' values, once the middleware ran. */
  of(c: Context<AppEnv>): ReadValues<R>;
}

/**
 * Declares that a route's caller needs `role` on the project `:id` names (or, for a key, what
 * `keyMay` allows) and that the route reads what `build` makes; see the file's comment for the
 * order of refusals.
 */
export function declareReads<R extends Reads>(
  role: Role,
  build: (scope: ReadScope) => R,
  keyMay?: (capabilities: ApiKeyCapabilities) => boolean,
): DeclaredReads<R> {
  const run: MiddlewareHandler<AppEnv> = async (c, next) => {
    const path: Record<string, string> = c.req.param();
    const ref = path.id ?? '';
    const reads = Object.entries(build({ http: getHttpDb(c), path, project: projectIdOf(ref) }));
    const answers = await readWithCaller(
      c,
      reads.map(([, read]) => read.query),
    );
    const { project } = await access(c, ref, role, keyMay);
    const values: Record<string, unknown> = { projectId: project.id };
    for (const [i, [name, read]] of reads.entries()) values[name] = read.decode(answers[i]);
    c.set('declaredReads', values);
    await next();
  };
  return {
    middleware: [readsCaller, run],
    of: (c) => c.get('declaredReads') as ReadValues<R>,
  };
}
