/**
 * The reconciler's removal of expired principals (contract §7). The systems refuse an expired
 * credential themselves (PostgreSQL `VALID UNTIL`, Atlas `deleteAfterDate`, IAM
 * `aws:CurrentTime`); this step then drops it and marks the principal revoked, so it leaves the
 * listings and the database's network policy.
 */
import { and, isNull, lte } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { principals } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import type { ProvisioningMessage } from '../../domain/queue-messages';
import { loadTargetAnyState } from '../credentials/cleanup';
import { dropCredential } from '../credentials/connection-credential';
import { requestPolicies } from '../delivery/network-policy';
import { revokeExpired } from '../resources/principal-removal';

/** Drops every expired principal's credential and marks it revoked; returns how many. */
export async function removeExpiredPrincipals(
  db: Db,
  config: Config,
  adapters: Adapters,
  queue: Queue<ProvisioningMessage>,
  now = new Date(),
): Promise<number> {
  const expired = await db
    .select()
    .from(principals)
    .where(and(isNull(principals.revokedAt), lte(principals.expiresAt, now)))
    .limit(200);
  const databases = new Set<string>();
  let removed = 0;
  let failure: unknown;
  for (const p of expired) {
    try {
      const target = await loadTargetAnyState(db, p.kind, p.resourceId);
      if (target) await dropCredential(adapters, config, target, p.credentialName);
      if (await revokeExpired(db, p.id)) removed++;
      if (p.kind === 'database') databases.add(p.resourceId);
    } catch (err) {
      // The others still go; the next run retries this one.
      failure = err;
    }
  }
  await requestPolicies(db, queue, [...databases]);
  if (failure) throw failure;
  return removed;
}
