/**
 * A database principal made with `allowed_sources` where the delivered network policy enforces
 * them (PostgreSQL) is made unable to log in (`state: "pending"`): from its creation until the
 * policy naming it with those sources was acknowledged by the policy receiver. Then it may log
 * in (`active`). Without a policy receiver it stays pending: nothing enforces its sources.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { principals } from '../../../db/schema';
import type { Adapters } from '../../adapters';
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
    await activateCredential(ctx.adapters, target, p.name);
    await ctx.db
      .update(principals)
      .set({ state: 'active' })
      .where(and(eq(principals.id, p.id), eq(principals.state, 'pending')));
  }
  return enforced.length;
}
