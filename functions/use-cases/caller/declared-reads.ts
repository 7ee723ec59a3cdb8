/**
 * What a route's declared access runs (routes/declared-reads.ts declares it): the reads a route
 * makes (`Read<T>`: a query not yet sent and how its answer becomes what the handler takes),
 * and the request's {@link CallerAdmission}, which sends the caller's lookup and those reads in
 * one round trip, admits the caller (admission.ts: 401, 403 of a caller the route never takes,
 * 404 of the project, 403 of the role), then decodes each answer (a read's own 404 comes after
 * the caller's refusals). A handler that retries its write runs its reads again: the caller is
 * read only the first time.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../../db/client';
import type { RequestContext } from '../../request-context';
import { type Admitted, admitCaller, type CallerNeed } from './admission';
import {
  type CallerRead,
  callerRead,
  type Membership,
  type Principal,
  projectIdOf,
  type Resolved,
  resolveCallerWith,
} from './api-caller';

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

/** What a route's reads are built from: the request's HTTP driver, its path's parameters, the project `:id` names and the calling account (as SQL). */
export interface ReadScope {
  http: HttpDb;
  path: Record<string, string>;
  project: SQL;
  account: SQL;
}

/** Where the admission hands on who the caller is, once its lookup is answered (the request's principal). */
export type OnCaller = (caller: Resolved) => void;

/** One request's caller admission: the caller's lookup until it is sent, and whether it was admitted. */
export class CallerAdmission {
  admitted = false;
  private membership: Membership | undefined;
  constructor(
    private readonly need: CallerNeed,
    private readonly ref: string,
    readonly scope: ReadScope,
    private pending: Extract<CallerRead, { query: SQL }> | undefined,
    private principal: Principal | undefined,
    private readonly onCaller: OnCaller,
    private readonly beforeInvalid?: (scope: ReadScope) => Reads,
  ) {}

  /** Sends `reads` (with the caller's lookup the first time), admits the caller and decodes them. */
  async run(reads: Reads): Promise<Record<string, unknown>> {
    const entries = Object.entries(reads);
    const { caller, answers } = await resolveCallerWith(
      this.scope.http,
      this.pending,
      entries.flatMap(([, r]) => r.queries),
    );
    this.pending = undefined;
    if (caller) {
      this.principal = caller.principal;
      if (caller.membership) this.membership = caller.membership;
      this.onCaller(caller);
    }
    const principal = this.principal ?? { type: 'anonymous' };
    const who = await admitCaller(this.scope.http, principal, this.need, this.ref, this.membership);
    this.admitted = true;
    const values: Record<string, unknown> = whoValues(who);
    let next = 0;
    for (const [name, r] of entries) {
      values[name] = r.decode(answers.slice(next, next + r.queries.length), who);
      next += r.queries.length;
    }
    return values;
  }

  /** Reads and admits the caller (with `beforeInvalid`'s reads) unless that is done; a refusal throws. */
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

/** What opens a request's admission: what the route needs, the credential presented and the path's parameters. */
export interface AdmissionRequest {
  need: CallerNeed;
  token: string | undefined;
  path: Record<string, string>;
  onCaller: OnCaller;
  /** The reads of the path whose 404 an invalid request still gets before its 400. */
  beforeInvalid?: (scope: ReadScope) => Reads;
}

/**
 * Opens the admission of a request to a route needing `need` of the project the path's `id`
 * names (none for a route of the caller's account or the operator's): a credential that needs
 * no lookup (none, the operator's) is admitted or refused here and now.
 */
export async function openAdmission(
  ctx: Pick<RequestContext, 'http' | 'config'>,
  { need, token, path, onCaller, beforeInvalid }: AdmissionRequest,
): Promise<CallerAdmission> {
  const ref = need.role === 'account' || need.role === 'operator' ? undefined : (path.id ?? '');
  const lookup = await callerRead(ctx.config, token, ref);
  const http = ctx.http;
  if ('resolved' in lookup) {
    onCaller(lookup.resolved);
    await admitCaller(http, lookup.resolved.principal, need, ref ?? '');
  }
  const pending = 'query' in lookup ? lookup : undefined;
  const account = pending ? pending.accountId : sql`null::uuid`;
  const scope: ReadScope = { http, path, project: projectIdOf(ref ?? ''), account };
  const principal = 'resolved' in lookup ? lookup.resolved.principal : undefined;
  return new CallerAdmission(need, ref ?? '', scope, pending, principal, onCaller, beforeInvalid);
}
