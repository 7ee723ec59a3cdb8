/** Accounts and their personal tokens (sessions: account-sessions.ts): only hashes of tokens are stored. */
import { eq, type SQL, sql } from 'drizzle-orm';
import { type HttpDb, runBatch } from '../../db/client';
import { accounts, accountTokens } from '../../db/schema';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { newId, newSecret } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { accountCreated } from './account-events';
import { listLiveOfAccount, revokeOwn } from './account-tokens';
import { activityQuery, type DetailValue } from './activity';

/** Dashboard sessions last twelve hours. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** An account as the API shows it. */
export interface AccountBody {
  id: string;
  email: string;
  name: string | null;
}

/** How long a personal token lives unless its creator says otherwise, and the longest it may. */
export const TOKEN_DEFAULT_DAYS = 90;
export const TOKEN_MAX_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates an account with its first token (shown once, expiring like a personal token after
 * {@link TOKEN_DEFAULT_DAYS} days); 409 when the e-mail is taken. One statement: the token is
 * inserted only from the account row this statement inserted.
 */
export async function createAccount(
  ctx: RequestContext,
  body: { email: string; name?: string },
): Promise<{ account: AccountBody; token: string }> {
  const token = newSecret('account');
  const account = { id: newId(), email: body.email, name: body.name ?? null };
  const expiresAt = new Date(ctx.clock.now().getTime() + TOKEN_DEFAULT_DAYS * DAY_MS).toISOString();
  const { rows } = await ctx.http.execute(sql`
    with a as (
      insert into accounts (id, email, name) values (${account.id}::uuid, ${account.email}, ${account.name})
      on conflict do nothing returning id),
    e as (${accountCreated(ctx.activity, account, sql`exists (select 1 from a)`)})
    insert into account_tokens (id, account_id, kind, name, token_hash, expires_at)
    select ${newId()}::uuid, a.id, 'token', 'initial', ${await sha256Hex(token)}, ${expiresAt} from a
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

/** What a new personal token is, and whose. */
export interface NewTokenInput {
  accountId: string;
  name: string;
  expiresInDays?: number;
  readOnly?: boolean;
  /** The token or session that minted it (its parent: a cascading revoke of that one revokes it too). */
  mintedBy?: string | null;
  /** What the Activity record adds about how the token came to be (never a secret). */
  details?: Record<string, DetailValue>;
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
export async function issueAccountToken(ctx: RequestContext, input: NewTokenInput): Promise<IssuedToken> {
  const db = ctx.http;
  const { accountId } = input;
  const token = newSecret('account');
  const id = newId();
  const createdAt = ctx.clock.now();
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
      mintedBy: input.mintedBy ?? null,
      createdAt,
    }),
    activityQuery(db, ctx.activity, {
      action: 'token.create',
      target: { type: 'token', id, name: input.name },
      projectId: null,
      accountId,
      details: { ...input.details, expires_at: expiresAt.toISOString(), read_only: readOnly },
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
export const listAccountTokens = (db: HttpDb, accountId: SQL | string) =>
  listLiveOfAccount(db, accountId, 'token');

/**
 * Revokes one of the account's tokens and, in the same statement, every dashboard session it
 * minted (a session outlived its token by twelve hours); with `cascade`, also everything it
 * minted, transitively: the tokens and sessions it made, what those made, and so on. 404 when the
 * account has no live token by that id.
 */
export async function revokeAccountToken(
  ctx: RequestContext,
  { accountId, tokenId, cascade = false }: { accountId: string; tokenId: string; cascade?: boolean },
): Promise<void> {
  await revokeOwn(ctx, {
    accountId,
    id: tokenId,
    kind: 'token',
    action: 'token.revoke',
    withMinted: cascade ? 'all' : true,
    expiredToo: true,
    named: true,
  });
}
