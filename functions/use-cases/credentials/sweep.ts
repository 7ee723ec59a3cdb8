/**
 * The full checks, as slow sweeps: each tick takes the next slice of each sweep by its cursor
 * (ids or role names in order, so a tick resumes where the last stopped), sized so one lap
 * covers everything in `RECONCILER_SWEEP_MINUTES` (a day by default), and adds the items whose
 * earlier failure is due for a retry. The id sweeps' slices go to the queue as `reconcile-slice`
 * messages of a few items each, which stay well inside a queue invocation's limits; the held
 * logins' page is one indexed listing by name in the tick. Every item runs on its own
 * (background/items.ts): one that fails or stalls is recorded and retried without the others
 * waiting.
 *
 * - database credentials: each own login or user exists (else restored) and still logs in
 *   with its stored password (else that password is set again);
 * - held logins: each `c_` role or user an engine's system holds is named by something (else
 *   dropped), a page by name a tick (Atlas's at most 100 users a project are one listing);
 * - bucket keys: each connection's key exists at IAM (else replaced), no key user is orphaned;
 * - network policies: each database's acknowledged policy is its desired one.
 */
import { and, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { buckets } from '../../../db/schema';
import type { Engine } from '../../domain/variables';
import { storageAccount } from '../../kinds/bucket/bucket-system';
import { engineNames, engineOf, isEngine } from '../../kinds/registry';
import { runItems } from '../background/items';
import {
  MESSAGE_SUBREQUESTS,
  type ReconcilerContext,
  type ReconcilerStep,
  type StepResult,
} from '../background/step';
import { enqueueDeliveries } from '../delivery/deliveries';
import { recordPolicyDrift } from '../delivery/network-policy';
import { checkBucketKeys } from './bucket-key-repair';
import { repairIfRefused } from './credential-repair';
import { type OwnDatabaseCredential, orphansAmong, restoreOne } from './drift';
import { type DroppedCredential, droppedCredentialEvents } from './repair-events';

/** Items a queued slice message carries at most. */
export const SLICE_CHUNK = 10;
/** The smallest slice a tick takes of a sweep, whatever its size. */
const MIN_SLICE = 10;
/** Failed items retried a tick, per sweep. */
const RETRIES_PER_TICK = 20;

/** A sweep over items with ids: how to page them, what one item costs and how to check a chunk. */
interface IdSweep {
  /** The table whose size sets the slice. */
  table: 'connections' | 'buckets' | 'databases';
  /** The next ids after `after`, in order. */
  page: (db: Db, after: string | null, limit: number) => Promise<string[]>;
  /** Outside calls (subrequests) one item costs at most. */
  cost: number;
  check: (ctx: ReconcilerContext, ids: readonly string[]) => Promise<number>;
}

/** Own database credentials by connection id, for {@link SWEEPS}. */
async function ownCredentials(db: Db, ids: readonly string[]): Promise<OwnDatabaseCredential[]> {
  const rows = await db.execute<OwnDatabaseCredential>(sql`
    select c.id, c.credential_name as name, c.credential_secret_ciphertext as secret, c.level,
           d.engine, d.physical_name as physical, d.status
      from connections c join databases d on d.id = c.resource_id and d.deleted_at is null
     where c.id = any(${sql.param(ids)}::uuid[]) and c.kind = 'database' and c.credential_mode = 'own'`);
  return rows.rows;
}

/** The names among `rows` each engine's system holds (engines this deployment does not configure hold none). */
async function heldAmong(
  ctx: ReconcilerContext,
  rows: readonly OwnDatabaseCredential[],
): Promise<Set<string>> {
  const present = new Set<string>();
  for (const name of new Set(rows.map((r) => r.engine).filter(isEngine))) {
    const names = rows.filter((r) => r.engine === name && r.name).map((r) => r.name as string);
    const held = await engineOf(name).heldCredentials(ctx.adapters, { names });
    // Not configured: nothing can be checked there, so nothing counts as missing.
    for (const h of held ?? names.map((n) => ({ name: n }))) present.add(h.name);
  }
  return present;
}

/** Checks own database credentials: present (else restored) and accepted (else repaired). */
async function checkDatabaseCredentials(ctx: ReconcilerContext, ids: readonly string[]): Promise<number> {
  const rows = await ownCredentials(ctx.db, ids);
  const present = await heldAmong(ctx, rows);
  const outcome = await runItems(
    ctx.db,
    'sweep:database-credentials',
    rows,
    (r) => r.id,
    async (r) => {
      if (r.name && !present.has(r.name)) return restoreOne(ctx, r);
      return repairIfRefused(ctx, r);
    },
  );
  return outcome.acted;
}

/** Checks buckets' keys at IAM, one bucket an item. */
async function checkBuckets(ctx: ReconcilerContext, ids: readonly string[]): Promise<number> {
  if (!storageAccount.adapter(ctx.adapters)) return 0;
  const found = await ctx.db
    .select()
    .from(buckets)
    .where(and(inArray(buckets.id, [...ids]), isNull(buckets.deletedAt)));
  const outcome = await runItems(
    ctx.db,
    'sweep:bucket-keys',
    found,
    (b) => b.id,
    async (b) => (await checkBucketKeys(ctx, b)) > 0,
  );
  return outcome.acted;
}

/** Records the policies that drifted among `ids` and sends them. */
async function checkPolicies(ctx: ReconcilerContext, ids: readonly string[]): Promise<number> {
  const fresh = await recordPolicyDrift(ctx.db, ids);
  if (ctx.receivers.networkPolicy) await enqueueDeliveries(ctx, fresh);
  return fresh.length;
}

/** The id sweeps by name (the step name, the failure records' step and the queue message's `sweep`). */
export const SWEEPS: Record<string, IdSweep> = {
  'sweep:database-credentials': {
    table: 'connections',
    // A login with the stored password, and the restore or repair through the admin session.
    cost: 2,
    page: async (db, after, limit) =>
      idsOf(
        db,
        sql`select id from connections where kind = 'database' and credential_mode = 'own'
             and id > ${after ?? '00000000-0000-0000-0000-000000000000'}::uuid order by id limit ${limit}`,
      ),
    check: checkDatabaseCredentials,
  },
  'sweep:bucket-keys': {
    table: 'buckets',
    // ListUsers of the bucket's path, ListAccessKeys of its key user and one connection's, and
    // a replaced key's CreateUser, PutUserPolicy and CreateAccessKey.
    cost: 6,
    page: async (db, after, limit) =>
      idsOf(
        db,
        sql`select id from buckets where deleted_at is null
             and id > ${after ?? '00000000-0000-0000-0000-000000000000'}::uuid order by id limit ${limit}`,
      ),
    check: checkBuckets,
  },
  'sweep:network-policies': {
    table: 'databases',
    cost: 0,
    page: async (db, after, limit) =>
      idsOf(
        db,
        sql`select id from databases where (deleted_at is null or deleted_at > now() - interval '7 days')
             and id > ${after ?? '00000000-0000-0000-0000-000000000000'}::uuid order by id limit ${limit}`,
      ),
    check: checkPolicies,
  },
};

/**
 * Subrequests a slice message makes whatever it carries: its metadata connection, a queue send
 * (the policies it found drifted) and an admin session on each engine's system (two).
 */
export const SLICE_OVERHEAD = 4;

/**
 * Items one queued message of `sweep` carries: at most {@link SLICE_CHUNK}, and few enough that
 * their outside calls and {@link SLICE_OVERHEAD} stay within {@link MESSAGE_SUBREQUESTS}, so a
 * full batch of messages stays within the queue invocation's budget.
 */
export function chunkOf(sweep: Pick<IdSweep, 'cost'>): number {
  const room = MESSAGE_SUBREQUESTS - SLICE_OVERHEAD;
  return sweep.cost <= 0 ? SLICE_CHUNK : Math.max(1, Math.min(SLICE_CHUNK, Math.floor(room / sweep.cost)));
}

async function idsOf(db: Db, query: ReturnType<typeof sql>): Promise<string[]> {
  return (await db.execute<{ id: string }>(query)).rows.map((r) => r.id);
}

/** The slice a tick takes of a table of about `rows` rows: a lap in `minutes` ticks (1: everything at once). */
export function sliceSize(rows: number, minutes: number): number {
  if (minutes <= 1) return 100_000;
  return Math.max(MIN_SLICE, Math.ceil(Math.max(rows, 0) / minutes));
}

/** The planner's row estimate of `table` (no count: it costs nothing whatever the size). */
async function estimatedRows(db: Db, table: string): Promise<number> {
  const r = await db.execute<{ n: number }>(
    sql`select greatest(reltuples, 0)::float8 as n from pg_class where oid = to_regclass(${`public.${table}`})`,
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** Items of `step` whose failure's backoff has passed. */
async function dueRetries(db: Db, step: string): Promise<string[]> {
  const r = await db.execute<{ id: string }>(sql`
    select item_id as id from reconcile_failures where step = ${step} and retry_at <= now()
     order by retry_at limit ${RETRIES_PER_TICK}`);
  return r.rows.map((x) => x.id);
}

/**
 * A step that sends the next slice of the id sweep `name` to the queue, a few items a message:
 * the tick itself only pages ids (one indexed read), so its cost stays flat whatever the tenant
 * count, and each message's outside calls stay well inside a queue invocation's limits. With a
 * lap a tick (`RECONCILER_SWEEP_MINUTES` 1: a small deployment, the cron tests) what fits the
 * tick's budget runs in the tick, so one tick converges everything it can.
 */
function idSweepStep(name: string, sweep: IdSweep): ReconcilerStep {
  return async (ctx): Promise<StepResult> => {
    const minutes = ctx.config.RECONCILER_SWEEP_MINUTES;
    const size = sliceSize(await estimatedRows(ctx.db, sweep.table), minutes);
    const after = ctx.cursors?.get(name) ?? null;
    const ids = await sweep.page(ctx.db, after, size);
    const cursor = ids.length < size ? null : (ids[ids.length - 1] ?? null);
    const work = [...new Set([...ids, ...(await dueRetries(ctx.db, name))])];
    const inline: string[] = [];
    const queued: string[][] = [];
    const per = chunkOf(sweep);
    for (let i = 0; i < work.length; i += per) {
      const chunk = work.slice(i, i + per);
      const fits =
        minutes <= 1 && queued.length === 0 && (ctx.budget?.take(sweep.cost * chunk.length) ?? true);
      if (fits) inline.push(...chunk);
      else queued.push(chunk);
    }
    const count = inline.length > 0 ? await sweep.check(ctx, inline) : 0;
    // A queue batch holds at most 100 messages.
    for (let i = 0; i < queued.length; i += 100) {
      ctx.budget?.take(1);
      await ctx.queue.sendBatch(
        queued
          .slice(i, i + 100)
          .map((ids) => ({ body: { type: 'reconcile-slice' as const, sweep: name, ids } })),
      );
    }
    return { count: count + queued.flat().length, cursor };
  };
}

/** A step that takes the next page of `engine`'s held credentials by name; orphans among them are dropped. */
function heldSweepStep(engine: Engine): ReconcilerStep {
  const name = `sweep:${engine}-logins`;
  return async (ctx): Promise<StepResult> => {
    const size = sliceSize(await estimatedRows(ctx.db, 'connections'), ctx.config.RECONCILER_SWEEP_MINUTES);
    ctx.budget?.take(1);
    const after = ctx.cursors?.get(name) ?? '';
    const page = await engineOf(engine).heldCredentials(ctx.adapters, { after, limit: size });
    if (!page) return { count: 0, cursor: null };
    const orphans = await orphansAmong(ctx.db, page, ctx.clock.now().getTime());
    ctx.budget?.take(orphans.length);
    const dropped: DroppedCredential[] = [];
    const outcome = await runItems(
      ctx.db,
      name,
      orphans,
      (h) => h.name,
      async (h) => {
        await h.drop();
        dropped.push({ name: h.name, kind: 'database', ...(h.database ? { physical: h.database } : {}) });
        return true;
      },
    );
    // One insert for the step's drops: each happened at a system outside the metadata database.
    if (dropped.length > 0) await droppedCredentialEvents(ctx.db, dropped);
    return {
      count: outcome.acted,
      cursor: page.length < size ? null : (page[page.length - 1]?.name ?? null),
    };
  };
}

/** The sweep steps, in order: the id sweeps, then each registered engine's held credentials. */
export function sweepSteps(): Record<string, ReconcilerStep> {
  return {
    ...Object.fromEntries(Object.entries(SWEEPS).map(([name, sweep]) => [name, idSweepStep(name, sweep)])),
    ...Object.fromEntries(engineNames().map((e) => [`sweep:${e}-logins`, heldSweepStep(e)])),
  };
}

/** Runs a queued slice of a sweep (the `reconcile-slice` message), at most {@link chunkOf} items of it. */
export async function runQueuedSlice(
  ctx: ReconcilerContext,
  name: string,
  ids: readonly string[],
): Promise<number> {
  const sweep = SWEEPS[name];
  if (!sweep) throw new Error(`no sweep ${name}`);
  // A message is never trusted to carry more than its budget allows: the rest goes back to the
  // queue as a message of its own (one send, counted in the overhead).
  const per = chunkOf(sweep);
  if (ids.length > per) await ctx.queue.send({ type: 'reconcile-slice', sweep: name, ids: ids.slice(per) });
  return sweep.check(ctx, ids.slice(0, per));
}
