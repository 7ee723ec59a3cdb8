/**
 * Removing credentials whose connection is gone (queue message `cleanup-credential`): the row in
 * credential_cleanups names what to drop; the handler drops it at the outside system and marks
 * the row done. Failures count attempts and rethrow, so the queue retries with backoff and the
 * reconciler re-enqueues whatever is still pending.
 */
import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { credentialCleanups } from '../../../db/schema';
import { type CredentialKindName, credentialsOf, keepsCredential } from '../../kinds/registry';
import type { JobContext } from '../../request-context';
import { type CredentialContext, type CredentialTarget, dropCredential } from './connection-credential';

/** The service a credential belongs to, deleted ones included (their credentials still go). */
export async function loadTargetAnyState(
  db: DbOrTx,
  kind: CredentialKindName,
  resourceId: string,
): Promise<CredentialTarget | null> {
  const [resource] = await credentialsOf(kind).rowsQuery(db, [resourceId]);
  return resource ? ({ kind, resource } as CredentialTarget) : null;
}

/**
 * Drops credential `credentialName` of `target` (a cleanup's credential); refuses a database's
 * main user, which the standalone case's "shared" connections use (dropping it breaks every app).
 */
export async function dropCleanupCredential(
  ctx: CredentialContext,
  { target, credentialName }: { target: CredentialTarget; credentialName: string },
): Promise<void> {
  if (keepsCredential(target, credentialName)) throw new Error('refusing to drop the main user');
  await dropCredential(ctx, { target, name: credentialName });
}

/** Marks a cleanup done (its credential is gone). */
export async function markCleanupDone(db: DbOrTx, cleanupId: string): Promise<void> {
  await db
    .update(credentialCleanups)
    .set({ doneAt: new Date(), attempts: sql`${credentialCleanups.attempts} + 1`, lastError: null })
    .where(and(eq(credentialCleanups.id, cleanupId), isNull(credentialCleanups.doneAt)));
}

/** Counts a failed attempt at a cleanup, with its error. */
export async function recordCleanupFailure(db: DbOrTx, cleanupId: string, err: Error): Promise<void> {
  await db
    .update(credentialCleanups)
    .set({ attempts: sql`${credentialCleanups.attempts} + 1`, lastError: err.message.slice(0, 500) })
    .where(eq(credentialCleanups.id, cleanupId));
}

/** Drops the credential a cleanup row names and marks it done; throws (after counting) to retry. */
export async function runCredentialCleanup(ctx: JobContext, cleanupId: string): Promise<void> {
  const { db } = ctx;
  const [row] = await db.select().from(credentialCleanups).where(eq(credentialCleanups.id, cleanupId));
  if (!row || row.doneAt) return;
  const target = await loadTargetAnyState(db, row.kind, row.resourceId);
  try {
    // A service whose record is gone entirely took its credentials with it.
    if (target) await dropCleanupCredential(ctx, { target, credentialName: row.credentialName });
  } catch (err) {
    await recordCleanupFailure(db, row.id, err as Error);
    throw err;
  }
  await markCleanupDone(db, row.id);
}

/** The reconciler step: re-enqueues cleanups still pending a minute after they were recorded. */
export async function resendCredentialCleanups({ db, queue }: JobContext): Promise<number> {
  const rows = await db
    .select({ id: credentialCleanups.id })
    .from(credentialCleanups)
    .where(
      and(
        isNull(credentialCleanups.doneAt),
        lt(credentialCleanups.createdAt, sql`now() - interval '60 seconds'`),
      ),
    )
    .orderBy(asc(credentialCleanups.createdAt))
    .limit(200);
  if (rows.length === 0) return 0;
  await queue.sendBatch(
    rows.map((r) => ({ body: { type: 'cleanup-credential' as const, cleanupId: r.id } })),
  );
  return rows.length;
}
