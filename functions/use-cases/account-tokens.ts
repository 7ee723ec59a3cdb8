/**
 * What personal tokens and dashboard sessions share: both are `account_tokens` rows of an
 * account (kind `token` or `session`), listed while live and revoked one at a time with an
 * Activity event, only a hash of the secret kept.
 */
import { and, asc, eq, gt, isNull, or, type SQL, sql } from 'drizzle-orm';
import { type HttpDb, runBatch } from '../../db/client';
import { accountTokens } from '../../db/schema';
import { ApiError } from '../lib/errors';
import { isUuid } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { accountEvent } from './account-events';

/** A row's kind: a personal token, or a dashboard session. */
export type AccountTokenKind = 'token' | 'session';

/** Where an `account_tokens` row is one of the account's live ones of `kind` (a token made before tokens expired has no expiry). */
export const liveOfAccount = (accountId: SQL | string, kind: AccountTokenKind): SQL | undefined =>
  and(
    eq(accountTokens.accountId, accountId),
    eq(accountTokens.kind, kind),
    isNull(accountTokens.revokedAt),
    or(isNull(accountTokens.expiresAt), gt(accountTokens.expiresAt, new Date())),
  );

/** The account's live rows of `kind`, oldest first (never a secret): a query for batching. */
export function listLiveOfAccount(db: HttpDb, accountId: SQL | string, kind: AccountTokenKind) {
  return db
    .select({
      id: accountTokens.id,
      name: accountTokens.name,
      createdAt: accountTokens.createdAt,
      expiresAt: accountTokens.expiresAt,
      lastUsedAt: accountTokens.lastUsedAt,
      readOnly: accountTokens.readOnly,
      mintedBy: accountTokens.mintedBy,
    })
    .from(accountTokens)
    .where(liveOfAccount(accountId, kind))
    .orderBy(asc(accountTokens.createdAt), asc(accountTokens.id));
}

/**
 * The ids of every row of the account minted from row `id`, transitively (through rows already
 * revoked too, so what a revoked child minted still goes), as a subquery.
 */
function mintedFrom(id: string, accountId: string): SQL {
  return sql`with recursive minted(id) as (
      select t.id from account_tokens t where t.minted_by = ${id}::uuid and t.account_id = ${accountId}::uuid
      union
      select t.id from account_tokens t join minted m on t.minted_by = m.id
    ) select id from minted`;
}

/** What {@link revokeOwn} revokes: the account's row `id` of `kind`, recorded as `action`. */
export interface OwnRevocation {
  accountId: string;
  id: string;
  kind: AccountTokenKind;
  action: string;
  /**
   * Also revoke, in the same statement, the sessions the row opened (`true`, a token's), or
   * everything minted from it, transitively (`'all'`: a cascading revoke).
   */
  withMinted?: boolean | 'all';
  /** Whether an expired row may still be revoked (a token's may: it is then gone from every list). */
  expiredToo?: boolean;
  /** Whether the event names the row by its name (a token has one). */
  named?: boolean;
}

/**
 * Revokes one of the account's live rows (and, `withMinted`, the sessions it opened, or with
 * `'all'` everything minted from it, the row itself already revoked or not) with its event, in
 * one batch; 404 when the account has no such row.
 */
export async function revokeOwn(ctx: RequestContext, r: OwnRevocation): Promise<void> {
  const db = ctx.http;
  if (!isUuid(r.id)) throw new ApiError('NOT_FOUND', `${r.kind} not found`);
  const id = r.id.toLowerCase();
  const unexpired = r.expiredToo ? sql`` : sql` and (expires_at is null or expires_at > now())`;
  const live = sql`exists (select 1 from account_tokens where id = ${id}::uuid and account_id = ${r.accountId}::uuid
    and kind = ${r.kind} and revoked_at is null${unexpired})`;
  const name = sql`select name from account_tokens where id = ${id}::uuid`;
  const target = { type: r.kind, id, ...(r.named ? { name } : {}) };
  const mine = and(eq(accountTokens.id, id), eq(accountTokens.kind, r.kind));
  const revoked =
    r.withMinted === 'all'
      ? or(mine, sql`${accountTokens.id} in (${mintedFrom(id, r.accountId)})`)
      : r.withMinted
        ? or(mine, and(eq(accountTokens.mintedBy, id), eq(accountTokens.kind, 'session')))
        : and(mine, r.expiredToo ? undefined : gt(accountTokens.expiresAt, new Date()));
  const cascade = r.withMinted === 'all';
  // A cascade also reaches a row already revoked: what it minted may still be live.
  const exists = sql`exists (select 1 from account_tokens where id = ${id}::uuid and account_id = ${r.accountId}::uuid
    and kind = ${r.kind})`;
  const [, gone, own] = await runBatch(db, [
    accountEvent(
      db,
      ctx.activity,
      r.accountId,
      r.action,
      target,
      cascade ? { cascade: true } : {},
      cascade ? exists : live,
    ),
    db
      .update(accountTokens)
      .set({ revokedAt: ctx.clock.now() })
      .where(and(eq(accountTokens.accountId, r.accountId), isNull(accountTokens.revokedAt), revoked))
      .returning({ id: accountTokens.id }),
    db
      .select({ id: accountTokens.id })
      .from(accountTokens)
      .where(and(mine, eq(accountTokens.accountId, r.accountId), cascade ? undefined : sql`false`)),
  ]);
  const found = cascade
    ? (own as Array<{ id: string }>).length > 0
    : (gone as Array<{ id: string }>).some((row) => row.id === id);
  if (!found) throw new ApiError('NOT_FOUND', `${r.kind} not found`);
}
