/**
 * One live patch in flight per site (docs/contract.md §14, fair delivery): the consumer sending a
 * site's patch holds the site (`sites.delivery_busy_until`) until it is done, so a slow or
 * unreachable target never has two of the queue's messages waiting on it. A message for a held
 * site is deferred (sent again a little later), not sent beside the first, and not counted as a
 * try. The hold lapses on its own if its holder dies, and is released only by the one that took it.
 * It costs a send two statements (take, release), on the queue's path, never a request's.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { queueLeaseSeconds } from './deliveries';

/** How long a hold lasts at most: longer than any send's outside calls take (a call times out at 10 s). */
export const SITE_HOLD_SECONDS = 60;

/** How long a message for a held site waits before it is looked at again. */
export const DEFER_SECONDS = 2;

/** A delivery's site is held by another consumer: its message comes back after `delaySeconds`. */
export class SiteBusy extends Error {
  constructor(readonly delaySeconds: number) {
    super('the site has a delivery in flight');
  }
}

/** What holding a delivery's site came to: held (with the token that releases it), or nothing to send. */
export type SiteHold = { held: true; token: string | null } | { held: false };

/**
 * Holds the site of pending live patch `deliveryId`, in one statement. Throws SiteBusy (recording
 * that its deferred message stands for it) when another consumer holds the site, sending this
 * delivery or another: a copy of a message whose try runs on past its batch is deferred, not
 * dropped, for it is that try's retry. `{held:false}` when the delivery is not pending (nothing
 * to send); `token: null` when its site is gone (the send supersedes it).
 */
export async function holdSite(db: DbOrTx, deliveryId: string): Promise<SiteHold> {
  const lease = DEFER_SECONDS + queueLeaseSeconds('runtime_patch');
  const result = await db.execute<{ pending: number; site: number; token: string | null }>(sql`
    with d as (
      select id, target_id from deliveries
       where id = ${deliveryId}::uuid and kind = 'runtime_patch' and status = 'pending'),
    held as (
      update sites s set delivery_busy_until = now() + make_interval(secs => ${SITE_HOLD_SECONDS})
        from d
       where s.id = d.target_id and (s.delivery_busy_until is null or s.delivery_busy_until < now())
      returning s.delivery_busy_until::text as token),
    deferred as (
      update deliveries x set requeue_after = now() + make_interval(secs => ${lease})
        from d
       where x.id = d.id and not exists (select 1 from held)
         and exists (select 1 from sites s where s.id = d.target_id)
      returning x.id)
    select (select count(*) from d)::int as pending,
           (select count(*) from sites s join d on s.id = d.target_id)::int as site,
           (select token from held) as token,
           (select count(*) from deferred)::int as deferred`);
  const row = result.rows[0];
  if (!row || Number(row.pending) === 0) return { held: false };
  if (Number(row.site) === 0) return { held: true, token: null };
  if (row.token === null) throw new SiteBusy(DEFER_SECONDS);
  return { held: true, token: row.token };
}

/** Releases the hold `token` on site `siteId` (a hold that lapsed and was taken again is left alone). */
export async function releaseSite(db: DbOrTx, siteId: string, token: string | null): Promise<void> {
  if (token === null) return;
  await db.execute(sql`
    update sites set delivery_busy_until = null
     where id = ${siteId}::uuid and delivery_busy_until = ${token}::timestamptz`);
}
