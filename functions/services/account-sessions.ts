/** Dashboard sessions of an account: opened by a token or a provider sign-in, listed, ended one by one or all at once. */
import { and, asc, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import { type HttpDb, runBatch } from '../../db/client';
import { accountTokens } from '../../db/schema';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { isUuid, newId, newSecret } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { accountEvent } from './account-events';
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
export function listDashboardSessions(db: HttpDb, accountId: SQL | string) {
  return db
    .select({
      id: accountTokens.id,
      createdAt: accountTokens.createdAt,
      expiresAt: accountTokens.expiresAt,
      mintedBy: accountTokens.mintedBy,
      lastUsedAt: accountTokens.lastUsedAt,
    })
    .from(accountTokens)
    .where(
      and(
        eq(accountTokens.accountId, accountId),
        eq(accountTokens.kind, 'session'),
        isNull(accountTokens.revokedAt),
        gt(accountTokens.expiresAt, new Date()),
      ),
    )
    .orderBy(asc(accountTokens.createdAt), asc(accountTokens.id));
}

/** Ends the account's live dashboard session `sessionId`; 404 when it has none by that id. */
export async function endDashboardSessionById(
  ctx: RequestContext,
  { accountId, sessionId }: { accountId: string; sessionId: string },
): Promise<void> {
  const db = ctx.http;
  if (!isUuid(sessionId)) throw new ApiError('NOT_FOUND', 'session not found');
  const id = sessionId.toLowerCase();
  const live = sql`exists (select 1 from account_tokens where id = ${id}::uuid and account_id = ${accountId}::uuid
    and kind = 'session' and revoked_at is null and expires_at > now())`;
  const [, ended] = await runBatch(db, [
    accountEvent(db, ctx.activity, accountId, 'session.revoke', { type: 'session', id }, {}, live),
    db
      .update(accountTokens)
      .set({ revokedAt: ctx.clock.now() })
      .where(
        and(
          eq(accountTokens.id, sessionId.toLowerCase()),
          eq(accountTokens.accountId, accountId),
          eq(accountTokens.kind, 'session'),
          isNull(accountTokens.revokedAt),
          gt(accountTokens.expiresAt, new Date()),
        ),
      )
      .returning({ id: accountTokens.id }),
  ]);
  if ((ended as unknown[]).length === 0) throw new ApiError('NOT_FOUND', 'session not found');
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
