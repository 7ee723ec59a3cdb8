/**
 * A service credential's or a principal's old secret kept valid after a rotate with
 * `?grace_seconds=N` (docs/contract.md §14): the rotate makes the new secret beside the old one
 * (a second login with the principal's level, expiry and sources; the key user's second key)
 * and records the old one here with its deadline. The minute reconciler retires it at the
 * deadline, or at once when its principal was revoked meanwhile; a later immediate rotate
 * retires it first. Retiring only ever removes the name the row holds, never a current one.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, DbOrTx, Queryable } from '../../../db/client';
import { type CredentialKindName, credentialsOf, keepsCredential } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { isUuid, newId } from '../../lib/ids';
import { mapLimit } from '../../lib/map-limit';
import type { JobContext } from '../../request-context';
import { activityQuery, SYSTEM_SOURCE } from '../activity';
import { enqueueDeliveries } from '../delivery/deliveries';
import { recordPolicyDrift } from '../delivery/network-policy';
import { loadTargetAnyState } from './cleanup';
import { type CredentialContext, type CredentialTarget, retireCredential } from './connection-credential';

/** An old secret still valid, as a rotate reads it. */
export type OpenRetirement = {
  id: string;
  credential_name: string;
  retires_at: string;
};

/** The owner of a retirement: a principal by id, or (null) the service's own credential. */
const ownerOf = (principalId: string | null) =>
  principalId === null ? sql`r.principal_id is null` : sql`r.principal_id = ${principalId}::uuid`;

/**
 * The open retirements of service `resourceId`'s principal `principalId` (null: its own
 * credential), as a query not yet sent (it goes with the rotate's other reads).
 */
export function openRetirementsQuery(db: Queryable, resourceId: string, principalId: string | null) {
  const named = isUuid(resourceId) && (principalId === null || isUuid(principalId));
  const owner = named
    ? sql`r.resource_id = ${resourceId.toLowerCase()}::uuid and ${ownerOf(principalId?.toLowerCase() ?? null)}`
    : sql`false`;
  return db.execute<OpenRetirement>(sql`
    select r.id, r.credential_name, r.retires_at from credential_retirements r
     where r.retired_at is null and ${owner} order by r.retires_at`);
}

/** The rows of an {@link openRetirementsQuery} answer. */
export const openRetirementsOf = (answer: unknown): OpenRetirement[] =>
  (answer as { rows: OpenRetirement[] }).rows;

/**
 * 409 for a graceful rotate while the last one's old secret still works: a credential keeps at
 * most two secrets (IAM's two keys a user; never a third login).
 */
export function stillRetiring(open: readonly OpenRetirement[]): ApiError {
  const [r] = open;
  const until = r ? new Date(r.retires_at).toISOString() : 'its deadline';
  return new ApiError(
    'CONFLICT',
    `the last rotation's old secret ${r?.credential_name ?? ''} still works until ${until} (a credential keeps at most two secrets): wait until then, or rotate without grace_seconds to refuse both old secrets at once; nothing was changed`,
  );
}

/** What a graceful rotate records beside its new secret. */
export interface RetirementInput {
  projectId: string;
  kind: CredentialKindName;
  resourceId: string;
  credentialName: string;
  principalId: string | null;
  retiresAt: Date;
}

/** The insert of a retirement, only while `when` holds (the new secret is the stored one). */
export function retirementStatement(db: Queryable, input: RetirementInput, when: SQL): BatchQuery {
  return db.execute(sql`
    insert into credential_retirements (id, project_id, kind, resource_id, credential_name, principal_id, retires_at)
    select ${newId()}::uuid, ${input.projectId}::uuid, ${input.kind}, ${input.resourceId}::uuid,
           ${input.credentialName}, ${input.principalId}::uuid, ${input.retiresAt.toISOString()}::timestamptz
     where ${when}`);
}

/** The update marking `open` retired now, for a write that refused them at once. */
export function retiredStatement(db: Queryable, open: readonly OpenRetirement[]): BatchQuery[] {
  if (open.length === 0) return [];
  const ids = sql.join(
    open.map((r) => sql`${r.id}::uuid`),
    sql`, `,
  );
  return [
    db.execute(
      sql`update credential_retirements set retired_at = now() where id in (${ids}) and retired_at is null`,
    ),
  ];
}

/** Refuses every old secret in `open` at once at the outside system (before a write marks them retired). */
export async function retireAllNow(
  ctx: CredentialContext,
  target: CredentialTarget,
  open: readonly OpenRetirement[],
): Promise<void> {
  for (const r of open) {
    if (keepsCredential(target, r.credential_name)) continue;
    await retireCredential(ctx, { target, name: r.credential_name });
  }
}

/** A retirement due, as the reconciler reads it. */
type DueRetirement = {
  id: string;
  project_id: string;
  kind: CredentialKindName;
  resource_id: string;
  credential_name: string;
  principal_id: string | null;
  /** The name its owner holds now (null: the principal was revoked or the service deleted). */
  current_name: string | null;
};

/** How many retirements one pass takes at most (earliest deadline first). */
const BATCH = 50;

async function dueRetirements(db: DbOrTx, now: Date): Promise<DueRetirement[]> {
  const rows = await db.execute<DueRetirement>(sql`
    select r.id, r.project_id, r.kind, r.resource_id, r.credential_name, r.principal_id,
           case when r.principal_id is not null
                then (select p.credential_name from principals p where p.id = r.principal_id and p.revoked_at is null)
                when r.kind = 'bucket'
                then (select b.access_key_id from buckets b where b.id = r.resource_id and b.deleted_at is null)
           end as current_name
      from credential_retirements r
     where r.retired_at is null
       and (r.retires_at <= ${now.toISOString()}::timestamptz
            or (r.principal_id is not null and not exists
                 (select 1 from principals p where p.id = r.principal_id and p.revoked_at is null)))
     order by r.retires_at limit ${BATCH}`);
  return rows.rows;
}

/** Retires one due old secret and marks it, with its `credential.retire` event; true when marked. */
async function retireOne(ctx: JobContext, r: DueRetirement, now: Date): Promise<boolean> {
  const target = await loadTargetAnyState(ctx.db, r.kind, r.resource_id);
  // Never the owner's current credential, nor a database's main user, whatever a row says.
  const retirable =
    target !== null && r.credential_name !== r.current_name && !keepsCredential(target, r.credential_name);
  if (target && retirable) await retireCredential(ctx, { target, name: r.credential_name });
  const done = await ctx.db.execute(sql`
    update credential_retirements set retired_at = ${now.toISOString()}::timestamptz, last_error = null
     where id = ${r.id}::uuid and retired_at is null returning id`);
  if (done.rows.length === 0) return false;
  await activityQuery(ctx.db, SYSTEM_SOURCE, {
    action: 'credential.retire',
    target: r.principal_id
      ? {
          type: 'principal',
          id: r.principal_id,
          name: sql`select coalesce((select name from principals where id = ${r.principal_id}::uuid), ${r.principal_id})`,
        }
      : { type: r.kind, id: r.resource_id, name: r.resource_id },
    projectId: r.project_id,
    details: { kind: r.kind, resource_id: r.resource_id, reason: r.current_name ? 'grace' : 'revoked' },
  });
  return true;
}

/**
 * The reconciler's step: retires the old secrets whose grace is over (or whose principal is
 * gone), earliest first, each on its own (a failure stays on its row and is retried next tick);
 * a database principal's retired login leaves its network policy. Returns how many it retired.
 */
export async function retireDueCredentials(ctx: JobContext): Promise<number> {
  const now = ctx.clock.now();
  const due = await dueRetirements(ctx.db, now);
  if (due.length === 0) return 0;
  const retired = await mapLimit(
    due,
    async (r) => {
      try {
        return (await retireOne(ctx, r, now)) ? r : null;
      } catch (err) {
        ctx.log.error(`retiring the old secret of ${r.kind} ${r.resource_id} failed; retried later:`, err);
        await ctx.db
          .execute(sql`
            update credential_retirements set last_error = ${(err as Error).message?.slice(0, 500) ?? 'failed'}
             where id = ${r.id}::uuid`)
          .catch(() => undefined);
        return null;
      }
    },
    4,
  );
  const done = retired.filter((r): r is DueRetirement => r !== null);
  const databases = [
    ...new Set(
      done.filter((r) => credentialsOf(r.kind).networkPolicy && r.principal_id).map((r) => r.resource_id),
    ),
  ];
  if (databases.length > 0) {
    const fresh = await recordPolicyDrift(ctx.db, databases);
    if (ctx.receivers.networkPolicy) await enqueueDeliveries(ctx, fresh);
  }
  return done.length;
}
