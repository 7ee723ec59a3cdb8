/**
 * A database principal made with `allowed_sources` where the delivered network policy enforces
 * them (PostgreSQL) is made unable to log in (`state: "pending"`): from its creation until the
 * policy naming it with those sources was acknowledged by the policy receiver. Then it may log
 * in (`active`). Without a policy receiver it stays pending: nothing enforces its sources.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { principals } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { JobContext } from '../../request-context';
import { notBackingOff, runItems } from '../background/items';
import { loadTargetAnyState } from '../credentials/cleanup';
import { activateCredential } from '../credentials/connection-credential';

/**
 * Lets the pending principals of database `databaseId` that an acknowledged policy named, with
 * the sources they hold now, log in, and records them active; returns how many. Throws when the
 * cluster refuses, so the delivery is sent again and this retried.
 */
export async function activatePrincipals(
  ctx: { db: Db; adapters: Adapters },
  databaseId: string,
  named: ReadonlyArray<{ username: string; allowed_sources: string[] }>,
): Promise<number> {
  if (named.length === 0) return 0;
  const sources = new Map(named.map((p) => [p.username, JSON.stringify([...p.allowed_sources].sort())]));
  const pending = await ctx.db
    .select({ id: principals.id, name: principals.credentialName, sources: principals.allowedSources })
    .from(principals)
    .where(
      and(
        eq(principals.resourceId, databaseId),
        eq(principals.kind, 'database'),
        eq(principals.state, 'pending'),
        isNull(principals.revokedAt),
        inArray(principals.credentialName, [...sources.keys()]),
      ),
    );
  // Only with the sources the policy carried: a change since waits for its own policy.
  const enforced = pending.filter((p) => sources.get(p.name) === JSON.stringify([...p.sources].sort()));
  if (enforced.length === 0) return 0;
  const target = await loadTargetAnyState(ctx.db, 'database', databaseId);
  if (!target) return 0;
  for (const p of enforced) {
    await activateCredential(ctx, { target, name: p.name });
    await ctx.db
      .update(principals)
      .set({ state: 'active' })
      .where(and(eq(principals.id, p.id), eq(principals.state, 'pending')));
  }
  return enforced.length;
}

/** The step's name in reconcile_failures. */
const STEP = 'activate-acknowledged-principals';
/** Pending principals one tick looks at. */
const BATCH = 50;

/**
 * The reconciler's sweep of pending principals: lets in each one whose sources the last
 * acknowledged policy of its database already carries, oldest first, each on its own (a failure
 * is recorded and retried after a backoff). Catches an activation lost after its policy was
 * recorded as acknowledged, which no later delivery would repeat (the policy had not changed).
 * A principal whose policy is not acknowledged yet stays pending: its delivery is re-sent by the
 * network-policies step until the receiver takes it. Returns how many it let in.
 */
export async function activateAcknowledgedPrincipals(ctx: JobContext): Promise<number> {
  const due = await ctx.db.execute<{ id: string; database_id: string; name: string; sources: string[] }>(sql`
    select p.id, p.resource_id as database_id, p.credential_name as name, p.allowed_sources as sources
      from principals p
     where p.state = 'pending' and p.revoked_at is null and p.kind = 'database'
       and ${notBackingOff(STEP, sql`p.id`)}
       and (select x.set_names from deliveries x
             where x.kind = 'network_policy' and x.target_id = p.resource_id and x.status = 'delivered'
             order by x.delivered_at desc limit 1)
           @> pg_catalog.jsonb_build_array('principal:' || p.credential_name || '=' || p.allowed_sources::text)
     order by p.created_at limit ${BATCH}`);
  const outcome = await runItems(
    ctx.db,
    STEP,
    due.rows,
    (p) => p.id,
    async (p) =>
      (await activatePrincipals(ctx, p.database_id, [{ username: p.name, allowed_sources: p.sources }])) > 0,
  );
  return outcome.acted;
}
