/**
 * A connection write in one round trip: every statement of the plan in one guarded write batch
 * (use-cases/store/guarded-write.ts), after a first statement that guards it. That guard raises the
 * connections_version of each site the plan changes where it still equals what the request
 * read, and fails (rolling the whole batch back) when a site did not match: another write
 * changed it since, so the plan was made from stale rows. Nothing holds a lock between the
 * request's read and its write.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, HttpDb } from '../../../db/client';
import type { Config } from '../../config';
import { ApiError } from '../../lib/errors';
import { type CurrentKey, currentKeyJson } from '../credentials/managed-key';
import { guardRows, runGuarded } from '../store/guarded-write';
import { affectedSites } from './plan';
import type { Prepared } from './prepare';
import {
  ConcurrentChange,
  isConcurrentChangeError,
  nothingWritten,
  planStatements,
  type Written,
} from './write';

/** What a guarded write read of a site: its connections_version (as Postgres's text) and managed key. */
export interface SiteState {
  version: string;
  key: CurrentKey;
}

/** Site states by site id. */
export type SiteStates = ReadonlyMap<string, SiteState>;

/**
 * The read of the states of the sites `where` selects (alias `s`), not yet sent. Send it before
 * the read of those sites' connections, in the same batch: each statement of a batch takes its
 * own snapshot, and a version read no later than the connections it guards can only make a
 * stale plan fail, never pass.
 */
export function siteStatesQuery(db: HttpDb, where: SQL) {
  return db.execute(sql`
    select s.id, s.connections_version::text as version, ${currentKeyJson(sql`s.id`)} as key
    from sites s where ${where}`);
}

/** Decodes the answer of {@link siteStatesQuery}. */
export function siteStatesFrom(answer: unknown): SiteStates {
  const rows = (answer as { rows: Array<{ id: string; version: string; key: CurrentKey }> }).rows;
  return new Map(rows.map((r) => [r.id, { version: r.version, key: r.key ?? null }]));
}

/**
 * The guard: raises each site's version from what was read (locking the sites in id order, as
 * every connection write does), or fails the batch with 409 CONFLICT when one did not match.
 */
function guardStatement(expected: Array<{ id: string; version: string }>): SQL {
  const values = sql.join(
    expected.map((e) => sql`(${e.id}::uuid, ${e.version}::bigint)`),
    sql`, `,
  );
  const ids = sql.join(
    expected.map((e) => sql`${e.id}::uuid`),
    sql`, `,
  );
  const bump = sql`
    update sites s set connections_version = s.connections_version + 1
      from (values ${values}) as e(id, version)
     where s.id = e.id and s.connections_version = e.version
       and s.id in (select id from sites where id in (${ids}) order by id for update)
    returning s.id`;
  return guardRows(bump, { code: 'CONFLICT', message: CHANGED }, expected.length);
}

const CHANGED = 'the connections changed while this request ran; retry';

/** Statements a write sends in the same batch as its plan: `before` it (after the guard) and `after` it. */
export interface AroundPlan {
  before?: readonly BatchQuery[];
  after?: readonly BatchQuery[];
}

/**
 * Writes a prepared plan in one round trip, guarded by the sites' `states` read with the plan;
 * throws {@link ConcurrentChange} when another write changed one of its sites meanwhile.
 */
export async function writeGuarded(
  db: HttpDb,
  config: Config,
  prepared: Prepared,
  states: SiteStates,
): Promise<Written> {
  return (await writeGuardedWith(db, config, prepared, states)).written;
}

/**
 * {@link writeGuarded} with the write's own statements in the same batch (a service's row made
 * or marked deleted with its connections): `around.before` runs after the sites' guard and
 * before the plan, `around.after` after it. Returns what the plan wrote and the answers of
 * `around.after`, in order. A batch with no site to guard and nothing around it is not sent.
 */
export async function writeGuardedWith(
  db: HttpDb,
  config: Config,
  prepared: Prepared,
  states: SiteStates,
  around: AroundPlan = {},
): Promise<{ written: Written; after: unknown[] }> {
  const { plan } = prepared;
  const before = around.before ?? [];
  const after = around.after ?? [];
  const sites = affectedSites(plan);
  if (sites.length === 0 && before.length + after.length === 0)
    return { written: nothingWritten(), after: [] };
  const keys = new Map<string, CurrentKey>();
  const expected: Array<{ id: string; version: string }> = [];
  for (const id of sites) {
    const state = states.get(id);
    // A site the request did not read cannot be guarded: treat it as changed.
    if (!state) throw new ConcurrentChange(plan.projectId);
    keys.set(id, state.key);
    expected.push({ id, version: state.version });
  }
  const { queries, written } =
    sites.length > 0
      ? await planStatements(db, config, prepared, keys)
      : { queries: [], written: nothingWritten() };
  const guarded = sites.length > 0 ? [db.execute(guardStatement(expected))] : [];
  let answers: unknown[];
  try {
    answers = await runGuarded(db, [...guarded, ...before, ...queries, ...after]);
  } catch (err) {
    const lostRace = err instanceof ApiError ? err.code === 'CONFLICT' : isConcurrentChangeError(err);
    if (lostRace) throw new ConcurrentChange(plan.projectId);
    throw err;
  }
  return { written, after: answers.slice(answers.length - after.length) };
}
