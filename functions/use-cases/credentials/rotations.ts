/**
 * Graceful rotations after their write (docs/contract.md §14): a rotation is `delivering` until
 * the live patch carrying the new secret is `live` where the app runs, then `draining` until the
 * old login has no session left, then its old credential is retired (`done`); at `retires_by`
 * (ROTATION_GRACE_SECONDS after it started) the old one goes whatever the rest says. The queue
 * consumer advances a site's rotations right after its `rotate` patch is sent, and the minute
 * reconciler every open one, so a rotation a dead Worker left half-way is finished by the next
 * tick. Retiring only ever removes the old credential the row names, never the connection's
 * current one, and a connection gone meanwhile takes its old credential with it.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import {
  CREDENTIAL_KIND_NAMES,
  type CredentialKindName,
  credentialsOf,
  targetsFrom,
} from '../../kinds/registry';
import { serviceNameOf } from '../../kinds/service-sql';
import { mapLimit } from '../../lib/map-limit';
import type { JobContext } from '../../request-context';
import { activityQuery, SYSTEM_SOURCE } from '../activity';
import { type CredentialTarget, credentialSessions, retireCredential } from './connection-credential';

/** An open rotation as the advance reads it. */
type OpenRotation = {
  connection_id: string;
  project_id: string;
  site_id: string;
  kind: CredentialKindName;
  resource_id: string;
  old_credential_name: string | null;
  live_at: string | null;
  retires_by: string | null;
  /** When its patch (or, it superseded, a later one of the site) was confirmed live. */
  delivery_live_at: string | null;
  /** The connection's current credential; null when the connection is gone. */
  current_name: string | null;
  connected: boolean;
};

/** How many open rotations one pass takes at most (oldest first). */
const BATCH = 50;

/**
 * When the rotation `r`'s new secret was confirmed live where the app runs: the first `live_at`
 * of its patch or of a patch of the site recorded at or after it (the app took the later values
 * whole, delivery/live.ts).
 */
export const DELIVERY_LIVE_AT = (r: SQL) => sql`(select min(l.live_at) from deliveries d join deliveries l
    on l.kind = 'runtime_patch' and l.target_id = d.target_id and l.status = 'live' and l.created_at >= d.created_at
   where d.id = ${r}.delivery_id)`;

/** The open rotations `where` selects (alias `r`), oldest first. */
async function openRotations(db: DbOrTx, where: SQL): Promise<OpenRotation[]> {
  const rows = await db.execute<OpenRotation>(sql`
    select r.connection_id, r.project_id, r.site_id, r.kind, r.resource_id, r.old_credential_name,
           r.live_at, r.retires_by, ${DELIVERY_LIVE_AT(sql`r`)} as delivery_live_at,
           c.credential_name as current_name, c.id is not null as connected
      from connection_rotations r left join connections c on c.id = r.connection_id
     where r.retired_at is null and ${where}
     order by r.started_at limit ${BATCH}`);
  return rows.rows;
}

/** Why a rotation's old credential went, as its `credential.retire` event says. */
type RetireReason = 'live' | 'grace' | 'disconnected' | 'service gone';

/** Marks `r` done (if it still names `old`) and records `credential.retire`, in one statement each. */
async function markRetired(
  ctx: JobContext,
  r: OpenRotation,
  now: Date,
  reason: RetireReason,
  sessions: number | null,
): Promise<boolean> {
  const done = await ctx.db.execute(sql`
    update connection_rotations set retired_at = ${now.toISOString()}::timestamptz,
           live_at = coalesce(live_at, ${r.delivery_live_at}::timestamptz), old_sessions = ${sessions}::int, last_error = null
     where connection_id = ${r.connection_id}::uuid and retired_at is null
       and old_credential_name is not distinct from ${r.old_credential_name}
    returning connection_id`);
  if (done.rows.length === 0) return false;
  const id = sql`${r.connection_id}::uuid`;
  await activityQuery(ctx.db, SYSTEM_SOURCE, {
    action: 'credential.retire',
    target: {
      type: 'connection',
      id: r.connection_id,
      name: sql`select coalesce((select st.slug || ' → ' || ${serviceNameOf(sql`c.kind`, sql`c.resource_id`)}
        from connections c join sites st on st.id = c.site_id where c.id = ${id}), ${r.connection_id})`,
    },
    projectId: r.project_id,
    siteId: r.site_id,
    details: { kind: r.kind, resource_id: r.resource_id, reason },
  });
  return true;
}

/** Advances one open rotation; true when it retired the old credential. */
async function advanceOne(
  ctx: JobContext,
  r: OpenRotation,
  target: CredentialTarget | undefined,
): Promise<boolean> {
  const now = ctx.clock.now();
  const old = r.old_credential_name;
  // Never the connection's current credential, whatever a row says.
  const retirable = old !== null && old !== r.current_name;
  if (!target) return markRetired(ctx, r, now, 'service gone', 0);
  if (!r.connected) {
    if (retirable) await retireCredential(ctx, { target, name: old });
    return markRetired(ctx, r, now, 'disconnected', 0);
  }
  const liveAt = r.live_at ?? r.delivery_live_at;
  const pastGrace = r.retires_by !== null && now.getTime() >= new Date(r.retires_by).getTime();
  if (!liveAt && !pastGrace) return false;
  const sessions = retirable ? await credentialSessions(ctx, { target, name: old }) : 0;
  if (!pastGrace && sessions !== null && sessions > 0) {
    await ctx.db.execute(sql`
      update connection_rotations set live_at = coalesce(live_at, ${liveAt}::timestamptz), old_sessions = ${sessions}::int
       where connection_id = ${r.connection_id}::uuid and retired_at is null`);
    return false;
  }
  if (retirable) await retireCredential(ctx, { target, name: old });
  return markRetired(ctx, r, now, liveAt && !pastGrace ? 'live' : 'grace', sessions);
}

/** The credential targets (database and bucket rows) of `rotations`. */
async function targetsOf(db: DbOrTx, rotations: readonly OpenRotation[]) {
  const answers = await Promise.all(
    CREDENTIAL_KIND_NAMES.map((kind) => {
      const ids = [...new Set(rotations.filter((r) => r.kind === kind).map((r) => r.resource_id))];
      return ids.length ? credentialsOf(kind).rowsQuery(db, ids) : [];
    }),
  );
  return targetsFrom(answers);
}

/**
 * Advances the open rotations `where` selects (alias `r`; all by default): live ones drain,
 * drained or past-deadline ones retire their old credential. A failure is kept on its row and
 * retried at the next pass. Returns how many were retired.
 */
export async function advanceRotations(ctx: JobContext, where: SQL = sql`true`): Promise<number> {
  const open = await openRotations(ctx.db, where);
  if (open.length === 0) return 0;
  const targets = await targetsOf(ctx.db, open);
  const retired = await mapLimit(
    open,
    async (r) => {
      try {
        return await advanceOne(ctx, r, targets.get(r.resource_id));
      } catch (err) {
        ctx.log.error(`advancing the rotation of connection ${r.connection_id} failed; retried later:`, err);
        await ctx.db
          .execute(sql`
            update connection_rotations set last_error = ${(err as Error).message?.slice(0, 500) ?? 'failed'}
             where connection_id = ${r.connection_id}::uuid`)
          .catch(() => undefined);
        return false;
      }
    },
    4,
  );
  return retired.filter(Boolean).length;
}

/** Advances the open rotations of site `siteId` (after one of its patches was sent). */
export const advanceSiteRotations = (ctx: JobContext, siteId: string): Promise<number> =>
  advanceRotations(ctx, sql`r.site_id = ${siteId}::uuid`);

/** Advances the open rotation whose new secret delivery `deliveryId` carries (after a step toward live). */
export const advanceDeliveryRotations = (ctx: JobContext, deliveryId: string): Promise<number> =>
  advanceRotations(ctx, sql`r.delivery_id = ${deliveryId}::uuid`);
