/**
 * The one-time repair of databases made when their owner group owned them (migration 0029): a
 * connect-level login, a member of `<db>_rw`, could `ALTER DATABASE … CONNECTION LIMIT -1` and
 * take the shared cluster's slots (contract §9, The shared cluster). The reconciler hands each
 * marked database that runs to the admin, its limit restored, a few a tick; a stopped one waits
 * until it runs (its catalog is reached by connecting to it), a deleted one needs nothing. Once
 * no database is marked, the step records that in its cursor and costs nothing from then on.
 */
import { and, asc, eq, isNotNull, or } from 'drizzle-orm';
import { databases } from '../../../db/schema';
import { engineOf } from '../../kinds/registry';
import type { ReconcilerContext, StepResult } from '../background/step';

/** Databases taken a tick: each costs two cluster sessions. */
const BATCH = 10;
/** The step's cursor once nothing is marked: new databases are made safe and never marked. */
const DONE = 'done';

/** Repairs up to {@link BATCH} marked databases; returns how many it made safe. */
export async function secureMarkedDatabases(ctx: ReconcilerContext): Promise<StepResult> {
  if (ctx.cursors?.get('secure-database-ownership') === DONE) return { count: 0 };
  const marked = await ctx.db
    .select({
      id: databases.id,
      engine: databases.engine,
      physical: databases.physicalName,
      status: databases.status,
      deletedAt: databases.deletedAt,
    })
    .from(databases)
    .where(
      and(
        eq(databases.ownershipPending, true),
        or(isNotNull(databases.deletedAt), eq(databases.status, 'running')),
      ),
    )
    .orderBy(asc(databases.id))
    .limit(BATCH);
  if (marked.length === 0) {
    // Only stopped ones (or none) are left: they wait; with none the step is done for good.
    const [waiting] = await ctx.db
      .select({ id: databases.id })
      .from(databases)
      .where(eq(databases.ownershipPending, true))
      .limit(1);
    return waiting ? { count: 0 } : { count: 0, cursor: DONE };
  }
  let secured = 0;
  let failure: unknown = null;
  for (const row of marked) {
    const secure = engineOf(row.engine).secureDatabase;
    if (!row.deletedAt && secure) {
      if (ctx.budget && !ctx.budget.take(2)) break;
      try {
        await secure({ config: ctx.config, adapters: ctx.adapters }, row.physical);
        secured++;
      } catch (err) {
        failure ??= err;
        continue;
      }
    }
    await ctx.db.update(databases).set({ ownershipPending: false }).where(eq(databases.id, row.id));
  }
  if (failure) throw failure;
  return { count: secured };
}
