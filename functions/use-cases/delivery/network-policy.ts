/**
 * Database network policies (contract §6): the sites allowed to reach a database are exactly
 * the sites connected to it. The minute reconciler compares each database's desired set with
 * the last acknowledged one and records a `network_policy` delivery when they differ; the
 * consumer derives `allowed_site_ids` when it sends, POSTs it signed, and stores the set it
 * got acknowledged. An unacknowledged delivery is retried at least once a minute (the queue's
 * backoff stops at a minute; the reconciler re-sends one whose message was lost or
 * dead-lettered), so the network converges within about two minutes of any connection change.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { connections, databases, deliveries } from '../../../db/schema';
import type { JobContext } from '../../request-context';
import { enqueueDeliveries, olderPending, sendClaimed } from './deliveries';

/**
 * The logins of database `d`'s live principals with their sources: each one's current login, and
 * the old login a rotate with `?grace_seconds` keeps until its deadline (credentials/retirements.ts),
 * held to the same sources.
 */
const PRINCIPAL_LOGINS = `(select p.credential_name, p.allowed_sources from principals p
     where p.kind = 'database' and p.resource_id = d.id and p.revoked_at is null
    union all select r.credential_name, p.allowed_sources from credential_retirements r
      join principals p on p.id = r.principal_id and p.revoked_at is null
     where r.kind = 'database' and r.resource_id = d.id and r.retired_at is null)`;

/**
 * A database's desired policy as one comparable JSON array (`d` is its row): the connected
 * sites' ids, sorted, then one `principal:<username>=<allowed_sources>` entry per live named
 * principal (contract §6 `principals`). What was acknowledged is stored in the same form.
 */
const DESIRED_POLICY = sql.raw(`case when d.deleted_at is null then coalesce(
        (select jsonb_agg(c.site_id order by c.site_id) from connections c
          where c.kind = 'database' and c.resource_id = d.id), '[]'::jsonb)
      || coalesce(
        (select jsonb_agg('principal:' || x.credential_name || '=' || x.allowed_sources::text
                          order by x.credential_name)
           from ${PRINCIPAL_LOGINS} x),
        '[]'::jsonb)
      else '[]'::jsonb end`);

/** A database's policy as sent, and its comparable form. */
export interface DatabasePolicy {
  allowedSiteIds: string[];
  principals: Array<{ username: string; allowed_sources: string[] }>;
  desired: string[];
}

/** The policy of database `databaseId` now, in one statement (empty for a deleted one). */
export async function currentPolicy(db: DbOrTx, databaseId: string): Promise<DatabasePolicy> {
  const result = await db.execute<{
    desired: string[] | null;
    principals: Array<{ username: string; allowed_sources: string[] }> | null;
  }>(sql`
    select ${DESIRED_POLICY} as desired,
      case when d.deleted_at is null then
        (select json_agg(json_build_object('username', x.credential_name, 'allowed_sources', x.allowed_sources)
                         order by x.credential_name)
           from ${sql.raw(PRINCIPAL_LOGINS)} x)
      end as principals
    from databases d where d.id = ${databaseId}::uuid`);
  const row = result.rows[0];
  const desired = row?.desired ?? [];
  return {
    allowedSiteIds: desired.filter((entry) => !entry.startsWith('principal:')),
    principals: row?.principals ?? [],
    desired,
  };
}

/** The sites allowed to reach a database now: those connected to it, sorted. */
export async function allowedSiteIds(db: DbOrTx, databaseId: string): Promise<string[]> {
  const rows = await db
    .select({ siteId: connections.siteId })
    .from(connections)
    .where(and(eq(connections.kind, 'database'), eq(connections.resourceId, databaseId)));
  return rows.map((r) => r.siteId).sort();
}

/**
 * The statement that records a pending policy delivery for each database (of `databaseIds`, or
 * all) whose desired set differs from the last acknowledged one and has none pending, returning
 * the new deliveries' ids; one statement, so a write can send it in its batch. Two recordings at
 * once both pass the "none pending" check; the unique index on a database's pending policy
 * keeps the second out (on conflict do nothing). Deleted databases
 * get one last empty set, then nothing; a database never told anything and reachable by no site
 * or principal needs no policy yet.
 */
export function policyDriftStatement(databaseIds?: readonly string[]): SQL {
  const scope = databaseIds
    ? sql`and d.id in (${sql.join(
        databaseIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`
    : sql``;
  return sql`
    insert into deliveries (id, kind, project_id, target_id, reason)
    select gen_random_uuid(), 'network_policy', w.project_id, w.id, 'policy'
      from (select d.id, d.project_id, ${DESIRED_POLICY} as desired,
                   (select x.set_names from deliveries x
                     where x.kind = 'network_policy' and x.target_id = d.id and x.status = 'delivered'
                     order by x.delivered_at desc limit 1) as last
              from databases d
             where not exists (select 1 from deliveries p
                    where p.kind = 'network_policy' and p.target_id = d.id and p.status = 'pending')
               and (d.deleted_at is null or d.deleted_at > now() - interval '7 days')
               ${scope}) w
     where not (w.last is null and w.desired = '[]'::jsonb)
       and coalesce(w.last, '[]'::jsonb) is distinct from w.desired
    on conflict (target_id) where kind = 'network_policy' and status = 'pending' do nothing
    returning id`;
}

/** Records the policy deliveries {@link policyDriftStatement} finds due; returns their ids. */
export async function recordPolicyDrift(db: DbOrTx, databaseIds?: readonly string[]): Promise<string[]> {
  if (databaseIds?.length === 0) return [];
  const result = await db.execute<{ id: string }>(policyDriftStatement(databaseIds));
  return result.rows.map((r) => r.id);
}

/**
 * Sends one policy delivery (the `deliver` handler, for kind network_policy). Throws to have the
 * queue retry with backoff; a delivery already sent or held by another consumer is left alone.
 */
export async function deliverNetworkPolicy(
  { db, receivers }: JobContext,
  deliveryId: string,
  /**
   * Runs once the receiver acknowledged `policy`, before the delivery is marked delivered: a
   * failure leaves it pending, so the queue sends it again and this runs again.
   */
  onAcknowledged?: (databaseId: string, policy: DatabasePolicy) => Promise<void>,
): Promise<void> {
  const receiver = receivers.networkPolicy;
  if (!receiver) return;
  const row = await sendClaimed(db, deliveryId, 'network_policy', async (claimed) => {
    const policy = await currentPolicy(db, claimed.targetId);
    const body = JSON.stringify({
      database_id: claimed.targetId,
      project_id: claimed.projectId,
      allowed_site_ids: policy.allowedSiteIds,
      principals: policy.principals,
    });
    await receiver.send(body);
    await onAcknowledged?.(claimed.targetId, policy);
    // The acknowledged set is what the next reconciler run compares against.
    return { sent: true, record: { setNames: policy.desired } };
  });
  if (!row) return;
  // Older pending copies are now stale; the next drift check records a fresh one if needed.
  await db.update(deliveries).set({ status: 'superseded' }).where(olderPending(row));
}

/** Records policy deliveries for the given databases now (callers that want sub-minute convergence). */
export async function requestPolicies(
  ctx: Pick<JobContext, 'db' | 'queue'>,
  databaseIds: readonly string[],
): Promise<void> {
  if (databaseIds.length === 0) return;
  const ids = await recordPolicyDrift(ctx.db, databaseIds);
  await enqueueDeliveries(ctx, ids);
}

/**
 * After a connection change (seen as the live patch it produced): records and sends the policies
 * of the project's databases at once, instead of waiting for the next minute's run.
 */
export async function policiesAfterChange(ctx: JobContext, patch: { projectId: string }): Promise<void> {
  const ids = await ctx.db
    .select({ id: databases.id })
    .from(databases)
    .where(eq(databases.projectId, patch.projectId));
  await requestPolicies(
    ctx,
    ids.map((r) => r.id),
  );
}
