/**
 * One guarded write batch: a write's row changes go to Postgres as one
 * non-interactive transaction over HTTP (one round trip, `runBatch`), and what must still hold
 * when they land (the project still there, the last owner kept, the service still live) is
 * checked in SQL inside that transaction rather than read first in a trip of its own.
 *
 * - {@link guard}: a statement that raises unless a condition holds (`tether_assert`, migration
 *   0007). Statements of a batch run in order in one transaction, so a guard sees the writes
 *   before it; one that fails rolls the whole batch back.
 * - {@link guardRows}: a data-modifying statement (`update … returning …`) that must touch rows;
 *   its returned rows come back as JSON objects keyed by column name.
 * - {@link runGuarded}: sends the batch; a failed guard becomes the ApiError it names, and a
 *   unique violation the ApiError `onUnique` gives for its constraint (else it is rethrown).
 *
 * Typical write: trip 1 reads the caller and the state (the route's declared reads, routes/declared-reads.ts); the outside work
 * (cluster, provider) runs; trip 2 is `runGuarded` holding every row write and its guards. On an
 * ApiError from trip 2 the route undoes its outside work, so a refusal leaves no trace.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type BatchQuery, type HttpDb, runBatch } from '../../../db/client';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../../lib/errors';

/** The SQLSTATE `tether_assert` raises with. */
const GUARD_STATE = 'TT001';
const UNIQUE_VIOLATION = '23505';

/** What a failed guard answers with. */
export interface GuardError {
  code: ErrorCode;
  message: string;
  field?: string;
}

const payloadOf = (error: GuardError): string =>
  JSON.stringify({ code: error.code, message: error.message, field: error.field });

/** SQL `select` that raises `error` (rolling its batch back) unless `condition` is true; null is false. */
export function guard(condition: SQL, error: GuardError): SQL {
  return sql`select tether_assert(${condition}, ${payloadOf(error)}) as ok`;
}

/**
 * SQL running `statement` (an insert, update or delete with `returning`) that raises `error`
 * unless it returned at least `atLeast` rows (default 1). Its answer is one row
 * `{ rows: [...] }`, the returned rows as JSON objects: read them with {@link rowsReturned}.
 */
export function guardRows(statement: SQL, error: GuardError, atLeast = 1): SQL {
  return sql`with w as (${statement})
    select tether_assert(count(*) >= ${atLeast}, ${payloadOf(error)}) as ok,
           coalesce(json_agg(to_json(w)), '[]'::json) as rows
      from w`;
}

/** The rows a {@link guardRows} statement returned, from its answer in the batch. */
export function rowsReturned<T = Record<string, unknown>>(answer: unknown): T[] {
  const [row] = (answer as { rows: Array<{ rows: T[] | string }> }).rows;
  if (!row) return [];
  return typeof row.rows === 'string' ? (JSON.parse(row.rows) as T[]) : row.rows;
}

/** Options of {@link runGuarded}. */
export interface GuardedOptions {
  /** The error a unique violation of `constraint` answers with; undefined rethrows it. */
  onUnique?: (constraint: string | undefined) => ApiError | undefined;
}

/** The driver's error fields, on the error itself or on the drizzle error wrapping it. */
function pgError(err: unknown): { code?: string; detail?: string; constraint?: string } | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 3; depth++) {
    const fields = e as { code?: unknown; detail?: string; constraint?: string; cause?: unknown };
    if (typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code))
      return fields as { code: string; detail?: string; constraint?: string };
    e = fields.cause;
  }
  return undefined;
}

/** The ApiError a failed guard named, or undefined for any other error. */
export function guardFailure(err: unknown): ApiError | undefined {
  const fields = pgError(err);
  if (fields?.code !== GUARD_STATE || !fields.detail) return undefined;
  const named = JSON.parse(fields.detail) as GuardError;
  const code = named.code in ERROR_STATUS ? named.code : 'INTERNAL';
  return new ApiError(code, named.message, named.field);
}

/** Whether `err` is Postgres's unique violation; the constraint it names, when it is. */
export function uniqueViolation(err: unknown): { constraint?: string } | undefined {
  const fields = pgError(err);
  return fields?.code === UNIQUE_VIOLATION ? { constraint: fields.constraint } : undefined;
}

/**
 * Sends `queries` (row writes and their guards, built on `db`) as one non-interactive
 * transaction: all land or none. Returns each one's answer, as `runBatch` does.
 */
export async function runGuarded(
  db: HttpDb,
  queries: readonly BatchQuery[],
  options: GuardedOptions = {},
): Promise<unknown[]> {
  try {
    return await runBatch(db, queries);
  } catch (err) {
    const failed = guardFailure(err);
    if (failed) throw failed;
    const unique = uniqueViolation(err);
    const mapped = unique && options.onUnique?.(unique.constraint);
    if (mapped) throw mapped;
    throw err;
  }
}
