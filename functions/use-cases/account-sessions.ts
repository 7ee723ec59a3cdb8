/** Dashboard sessions of an account: opened by a token or a provider sign-in, listed, ended one by one or all at once. */
import { and, eq, isNull, type SQL } from 'drizzle-orm';
import { type HttpDb, runBatch } from '../../db/client';
import { accountTokens } from '../../db/schema';
import { sha256Hex } from '../lib/crypto';
import { newId, newSecret } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { accountEvent } from './account-events';
import { listLiveOfAccount, revokeOwn } from './account-tokens';
import { SESSION_TTL_MS } from './accounts';

/**
 * Opens a dashboard session (shown once) that ends after twelve hours, or earlier with the
 * account token `mintedBy` that opened it.
 */
export async function openDashboardSession(
  ctx: RequestContext,
  { accountId, mintedBy }: { accountId: string; mintedBy: string | null },
): Promise<{ token: string; expiresAt: Date }> {
  const db = ctx.http;
  const token = newSecret('session');
  const expiresAt = new Date(ctx.clock.now().getTime() + SESSION_TTL_MS);
  const id = newId();
  await runBatch(db, [
    db.insert(accountTokens).values({
      id,
      accountId,
      kind: 'session',
      tokenHash: await sha256Hex(token),
      expiresAt,
      mintedBy,
    }),
    accountEvent(
      db,
      ctx.activity,
      accountId,
      'session.create',
      { type: 'session', id },
      { minted_by: mintedBy },
    ),
  ]);
  return { token, expiresAt };
}

/** The account's live dashboard sessions, oldest first (never a session token): a query for batching. */
export const listDashboardSessions = (db: HttpDb, accountId: SQL | string) =>
  listLiveOfAccount(db, accountId, 'session');

/** Ends the account's live dashboard session `sessionId`; 404 when it has none by that id. */
export async function endDashboardSessionById(
  ctx: RequestContext,
  { accountId, sessionId }: { accountId: string; sessionId: string },
): Promise<void> {
  await revokeOwn(ctx, { accountId, id: sessionId, kind: 'session', action: 'session.revoke' });
}

/** Ends the account's dashboard session `tokenId` (the console's Sign out). */
export async function endDashboardSession(
  ctx: RequestContext,
  { accountId, tokenId }: { accountId: string; tokenId: string },
): Promise<void> {
  const db = ctx.http;
  await runBatch(db, [
    db
      .update(accountTokens)
      .set({ revokedAt: ctx.clock.now() })
      .where(and(eq(accountTokens.id, tokenId), eq(accountTokens.accountId, accountId))),
    accountEvent(db, ctx.activity, accountId, 'session.end', { type: 'session', id: tokenId }),
  ]);
}

/** Ends every live dashboard session of the account (sign out everywhere); returns how many. */
export async function endAllDashboardSessions(
  ctx: RequestContext,
  { accountId }: { accountId: string },
): Promise<number> {
  const db = ctx.http;
  const [ended] = await runBatch(db, [
    db
      .update(accountTokens)
      .set({ revokedAt: ctx.clock.now() })
      .where(
        and(
          eq(accountTokens.accountId, accountId),
          eq(accountTokens.kind, 'session'),
          isNull(accountTokens.revokedAt),
        ),
      )
      .returning({ id: accountTokens.id }),
    accountEvent(db, ctx.activity, accountId, 'session.revoke_all', { type: 'account', id: accountId }),
  ]);
  return (ended as unknown[]).length;
}
