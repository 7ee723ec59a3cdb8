/**
 * Sending a live patch (contract §6 and §11): to the site's own delivery target when it has one,
 * else to the platform-wide RUNTIME_PATCH_URL, else it stays pending. The values are derived when
 * it is sent, so every copy carries the site's current truth for the names it touches.
 */
import { eq, sql } from 'drizzle-orm';
import { deliveries, sites } from '../../../db/schema';
import type { DeliverOutcome, FollowUp, TargetPatch } from '../../adapters/targets';
import type { JobContext } from '../../request-context';
import { deriveSiteEnv } from '../site-env/derive';
import { confirmState, enqueueConfirm } from './confirm';
import { olderPending, sendClaimed } from './deliveries';
import { settleEarlier } from './live';
import { holdSite, releaseSite } from './site-hold';
import { type SiteSender, siteSender } from './targets';

type DeliveryRow = typeof deliveries.$inferSelect;

/**
 * The live patch a delivery stands for: current values for the names it touches, and for those
 * of every earlier patch of the site still pending (one in flight may reach the runtime after
 * this one and be dropped there as older, so this one carries its names too); a `sync` carries
 * the whole effective set. `seq` is taken from the site's counter at send time, so it rises in
 * the order the values were read. Null when the site is gone.
 */
export async function patchPayload(
  ctx: Pick<JobContext, 'db' | 'config' | 'adapters'>,
  row: Pick<
    DeliveryRow,
    'id' | 'kind' | 'targetId' | 'projectId' | 'reason' | 'setNames' | 'unsetNames' | 'createdAt'
  >,
): Promise<TargetPatch | null> {
  const { db, config, adapters } = ctx;
  const [counter] = await db
    .update(sites)
    .set({ patchSeq: sql`${sites.patchSeq} + 1` })
    .where(eq(sites.id, row.targetId))
    .returning({ seq: sites.patchSeq });
  if (!counter) return null;
  const env = await deriveSiteEnv(db, config, adapters, row.targetId);
  if (!env) return null;
  const earlier = await db
    .select({ setNames: deliveries.setNames, unsetNames: deliveries.unsetNames })
    .from(deliveries)
    .where(olderPending(row));
  const names = new Set([...row.setNames, ...row.unsetNames]);
  if (row.reason === 'sync') for (const n of Object.keys(env.effective)) names.add(n);
  for (const e of earlier) for (const n of [...e.setNames, ...e.unsetNames]) names.add(n);
  const set: Record<string, string> = {};
  const unset: string[] = [];
  // A name the app should no longer have from us may still hold the user's own value.
  for (const name of [...names].sort()) {
    const value = env.effective[name];
    if (value === undefined) unset.push(name);
    else set[name] = value;
  }
  const reason = row.reason ?? 'connect';
  const body = JSON.stringify({
    site_id: row.targetId,
    project_id: row.projectId,
    set,
    unset,
    reason,
    seq: counter.seq,
  });
  return { siteId: row.targetId, projectId: row.projectId, set, unset, reason, seq: counter.seq, body };
}

/**
 * Sends one runtime-patch delivery (the `deliver` message handler). Throws to have the queue
 * retry it with backoff, or SiteBusy while another consumer is sending one of the site's patches
 * (site-hold.ts); a delivery already sent, or held by another consumer, is left alone, and
 * one whose site has no target while no RUNTIME_PATCH_URL is set stays pending, untouched. A
 * target that confirms later (a redeploy, Machine restarts) leaves it `delivered` with the step
 * that follows, taken by a delayed `confirm-live` message (confirm.ts).
 */
export async function deliverRuntimePatch(
  ctx: JobContext,
  delivery: Pick<DeliveryRow, 'id' | 'targetId'>,
): Promise<void> {
  const { db, config, receivers } = ctx;
  const sender = await siteSender(db, config, receivers, delivery.targetId);
  if (!sender) return;
  // One patch in flight per site: a copy for a site already held is deferred (throws SiteBusy).
  const hold = await holdSite(db, delivery.id);
  if (!hold.held) return;
  try {
    await sendHeld(ctx, delivery, sender);
  } finally {
    await releaseSite(db, delivery.targetId, hold.token);
  }
}

/** Sends the delivery while its site is held; a platform that confirms later gets its follow-up enqueued. */
async function sendHeld(
  ctx: JobContext,
  delivery: Pick<DeliveryRow, 'id' | 'targetId'>,
  sender: SiteSender,
): Promise<void> {
  const { db } = ctx;
  let follow: FollowUp | undefined;
  await sendClaimed(db, delivery.id, 'runtime_patch', async (row) => {
    const patch = await patchPayload(ctx, row);
    // The site is gone; there is no app left to patch.
    if (patch === null) return { sent: false, reason: 'site deleted' };
    let outcome: DeliverOutcome;
    try {
      outcome = await sender.send(patch);
    } catch (err) {
      // The seq it went out with, so the listing shows which try failed.
      await db.update(deliveries).set({ seq: patch.seq }).where(eq(deliveries.id, row.id));
      throw err;
    }
    const now = ctx.clock.now();
    // Live here is live for every earlier patch already written: the app took the later values whole.
    // Not yet live, this patch's follow-up (a redeploy, a restart) takes over any earlier one's.
    await settleEarlier(db, row.targetId, patch.seq, outcome.live ? now : null);
    // A sync records the names it carried (it names none until sent).
    const names = row.reason === 'sync' ? { setNames: Object.keys(patch.set), unsetNames: patch.unset } : {};
    if (!outcome.live) follow = outcome.next;
    const state = outcome.live
      ? { status: 'live' as const, liveAt: now }
      : { confirmState: confirmState(sender.type, outcome.next.state) };
    return { sent: true, record: { seq: patch.seq, deliveredAt: now, ...state, ...names } };
  });
  if (follow) await enqueueConfirm(ctx, delivery.id, follow.delaySeconds);
}
