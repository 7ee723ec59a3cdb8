/**
 * The reconciler's removal of expired principals (contract §7). The systems refuse an expired
 * credential themselves (PostgreSQL `VALID UNTIL`, Atlas `deleteAfterDate`, IAM
 * `aws:CurrentTime`); this step then drops it and marks the principal revoked, so it leaves the
 * listings and the database's network policy.
 */
import { and, asc, isNull, lte, sql } from 'drizzle-orm';
import { principals } from '../../../db/schema';
import { credentialsOf } from '../../kinds/registry';
import type { JobContext } from '../../request-context';
import { notBackingOff, runItems } from '../background/items';
import { loadTargetAnyState } from '../credentials/cleanup';
import { dropCredential } from '../credentials/connection-credential';
import { requestPolicies } from '../delivery/network-policy';
import { revokeExpired } from '../resources/principal-removal';

/** The step's name in reconcile_failures. */
const STEP = 'remove-expired-principals';
/** Expired principals one tick removes. */
const BATCH = 50;

/**
 * Drops expired principals' credentials and marks them revoked, oldest expiry first, each on
 * its own (background/items.ts): one a tenant stalls (a lock on its role) costs one short
 * deadline, is recorded with its error and retried after a backoff, and leaves the batch to the
 * others meanwhile. Returns how many it removed.
 */
export async function removeExpiredPrincipals(ctx: JobContext): Promise<number> {
  const { db, config, adapters } = ctx;
  const now = ctx.clock.now();
  const expired = await db
    .select()
    .from(principals)
    .where(
      and(
        isNull(principals.revokedAt),
        lte(principals.expiresAt, now),
        notBackingOff(STEP, sql`${principals.id}`),
      ),
    )
    .orderBy(asc(principals.expiresAt))
    .limit(BATCH);
  const databases = new Set<string>();
  const outcome = await runItems(
    db,
    STEP,
    expired,
    (p) => p.id,
    async (p) => {
      const target = await loadTargetAnyState(db, p.kind, p.resourceId);
      if (target) await dropCredential({ adapters, config }, { target, name: p.credentialName });
      const removed = await revokeExpired(db, p);
      if (credentialsOf(p.kind).networkPolicy) databases.add(p.resourceId);
      return removed;
    },
  );
  await requestPolicies(ctx, [...databases]);
  return outcome.acted;
}
