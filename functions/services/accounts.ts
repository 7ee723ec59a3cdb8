/** Accounts, their tokens and dashboard sessions: only hashes of tokens are stored. */
import { and, asc, eq, gt, isNull, or, type SQL, sql } from 'drizzle-orm';
import { type HttpDb, runBatch } from '../../db/client';
import { accounts, accountTokens } from '../../db/schema';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { isUuid, newId, newSecret } from '../lib/ids';
import { accountCreated, accountEvent } from './account-events';
import { type ActivitySource, activityQuery } from './activity';

/** Dashboard sessions last twelve hours. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** An account as the API shows it. */
export interface AccountBody {
  id: string;
  email: string;
  name: string | null;
}

/**
 * Creates an account with its first token (shown once); 409 when the e-mail is taken. One
 * statement: the token is inserted only from the account row this statement inserted.
 */
export async function createAccount(
  db: HttpDb,
  by: ActivitySource,
  body: { email: string; name?: string },
): Promise<{ account: AccountBody; token: string }> {
  const token = newSecret('account');
  const account = { id: newId(), email: body.email, name: body.name ?? null };
  const { rows } = await db.execute(sql`
    with a as (
      insert into accounts (id, email, name) values (${account.id}::uuid, ${account.email}, ${account.name})
      on conflict do nothing returning id),
    e as (${accountCreated(by, account, sql`exists (select 1 from a)`)})
    insert into account_tokens (id, account_id, kind, name, token_hash)
    select ${newId()}::uuid, a.id, 'token', 'initial', ${await sha256Hex(token)} from a
    returning id`);
  if (rows.length === 0)
    throw new ApiError('CONFLICT', `an account with e-mail ${body.email} already exists`);
  return { account, token };
}

/** The account `accountId` as rows (none when it is gone): a query not yet sent, for batching. */
export function readAccount(db: HttpDb, accountId: SQL | string) {
  return db
    .select({ id: accounts.id, email: accounts.email, name: accounts.name })
    .from(accounts)
    .where(eq(accounts.id, accountId));
}

/** How long a personal token lives unless its creator says otherwise, and the longest it may. */
export const TOKEN_DEFAULT_DAYS = 90;
export const TOKEN_MAX_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What a new personal token is. */
export interface NewTokenInput {
  name: string;
  expiresInDays?: number;
  readOnly?: boolean;
}

/** A personal token as it is created (its value shown this once). */
export interface IssuedToken {
  id: string;
  name: string;
  token: string;
  created_at: string;
  expires_at: string;
  read_only: boolean;
}

/** Issues a personal token (shown once) that expires after `expiresInDays` (default 90). */
export async function issueAccountToken(
  db: HttpDb,
  by: ActivitySource,
  accountId: string,
  input: NewTokenInput,
): Promise<IssuedToken> {
  const token = newSecret('account');
  const id = newId();
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + (input.expiresInDays ?? TOKEN_DEFAULT_DAYS) * DAY_MS);
  const readOnly = input.readOnly ?? false;
  await runBatch(db, [
    db.insert(accountTokens).values({
      id,
      accountId,
      kind: 'token',
      name: input.name,
      tokenHash: await sha256Hex(token),
      expiresAt,
      readOnly,
      createdAt,
    }),
    activityQuery(db, by, {
      action: 'token.create',
      target: { type: 'token', id, name: input.name },
      projectId: null,
      accountId,
      details: { expires_at: expiresAt.toISOString(), read_only: readOnly },
    }),
  ]);
  return {
    id,
    name: input.name,
    token,
    created_at: createdAt.toISOString(),
    expires_at: expiresAt.toISOString(),
    read_only: readOnly,
  };
}

/** The account's live personal tokens, oldest first (never a value): a query for batching. */
export function listAccountTokens(db: HttpDb, accountId: SQL | string) {
  return db
    .select({
      id: accountTokens.id,
      name: accountTokens.name,
      createdAt: accountTokens.createdAt,
      expiresAt: accountTokens.expiresAt,
      lastUsedAt: accountTokens.lastUsedAt,
      readOnly: accountTokens.readOnly,
    })
    .from(accountTokens)
    .where(
      and(
        eq(accountTokens.accountId, accountId),
        eq(accountTokens.kind, 'token'),
        isNull(accountTokens.revokedAt),
        or(isNull(accountTokens.expiresAt), gt(accountTokens.expiresAt, new Date())),
      ),
    )
    .orderBy(asc(accountTokens.createdAt), asc(accountTokens.id));
}

/**
 * Revokes one of the account's live tokens and, in the same statement, every dashboard session
 * it minted (a session outlived its token by twelve hours); 404 when the account has
 * no live token by that id.
 */
export async function revokeAccountToken(
  db: HttpDb,
  by: ActivitySource,
  accountId: string,
  tokenId: string,
): Promise<void> {
  if (!isUuid(tokenId)) throw new ApiError('NOT_FOUND', 'token not found');
  const id = tokenId.toLowerCase();
  const live = sql`exists (select 1 from account_tokens where id = ${id}::uuid and account_id = ${accountId}::uuid
    and kind = 'token' and revoked_at is null)`;
  const recorded = activityQuery(
    db,
    by,
    {
      action: 'token.revoke',
      target: { type: 'token', id, name: sql`select name from account_tokens where id = ${id}::uuid` },
      projectId: null,
      accountId,
    },
    live,
  );
  const revocation = db
    .update(accountTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(accountTokens.accountId, accountId),
        isNull(accountTokens.revokedAt),
        or(
          and(eq(accountTokens.id, id), eq(accountTokens.kind, 'token')),
          and(eq(accountTokens.mintedBy, id), eq(accountTokens.kind, 'session')),
        ),
      ),
    )
    .returning({ id: accountTokens.id });
  const [, revoked] = await db.batch([recorded, revocation]);
  if (!revoked.some((row) => row.id === id)) throw new ApiError('NOT_FOUND', 'token not found');
}

/**
 * Opens a dashboard session (shown once) that ends after twelve hours, or earlier with the
 * account token `mintedBy` that opened it.
 */
export async function openDashboardSession(
  db: HttpDb,
  by: ActivitySource,
  accountId: string,
  mintedBy: string | null,
): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret('session');
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
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
    accountEvent(db, by, accountId, 'session.create', { type: 'session', id }, { minted_by: mintedBy }),
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
  db: HttpDb,
  by: ActivitySource,
  accountId: string,
  sessionId: string,
): Promise<void> {
  if (!isUuid(sessionId)) throw new ApiError('NOT_FOUND', 'session not found');
  const id = sessionId.toLowerCase();
  const live = sql`exists (select 1 from account_tokens where id = ${id}::uuid and account_id = ${accountId}::uuid
    and kind = 'session' and revoked_at is null and expires_at > now())`;
  const [, ended] = await runBatch(db, [
    accountEvent(db, by, accountId, 'session.revoke', { type: 'session', id }, {}, live),
    db
      .update(accountTokens)
      .set({ revokedAt: new Date() })
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
  db: HttpDb,
  by: ActivitySource,
  accountId: string,
  tokenId: string,
): Promise<void> {
  await runBatch(db, [
    db
      .update(accountTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(accountTokens.id, tokenId), eq(accountTokens.accountId, accountId))),
    accountEvent(db, by, accountId, 'session.end', { type: 'session', id: tokenId }),
  ]);
}

/** Ends every live dashboard session of the account (sign out everywhere); returns how many. */
export async function endAllDashboardSessions(
  db: HttpDb,
  by: ActivitySource,
  accountId: string,
): Promise<number> {
  const [ended] = await runBatch(db, [
    db
      .update(accountTokens)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(accountTokens.accountId, accountId),
          eq(accountTokens.kind, 'session'),
          isNull(accountTokens.revokedAt),
        ),
      )
      .returning({ id: accountTokens.id }),
    accountEvent(db, by, accountId, 'session.revoke_all', { type: 'account', id: accountId }),
  ]);
  return (ended as unknown[]).length;
}
