/**
 * Signing a person in to the console with a provider (GitHub, Google) through the same provider
 * modules the auth service uses: the account is found by a verified e-mail address only, made
 * when the sign-up policy allows it (or a pending invitation names the address), and given a
 * dashboard session, all in one statement.
 */
import { sql } from 'drizzle-orm';
import { maySignUp } from '../domain/signup-policy';
import { sha256Hex } from '../lib/crypto';
import { newId, newSecret } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { SESSION_TTL_MS } from './accounts';
import { type ActivitySource, activityStatement } from './activity';
import type { ProviderIdentity } from './sign-in/users';

/** The outcome of a provider sign-in. */
export type ConsoleSignIn =
  | {
      ok: true;
      accountId: string;
      email: string;
      created: boolean;
      session: { token: string; expiresAt: Date };
    }
  | { ok: false; reason: 'unverified' | 'not_invited' };

/**
 * Signs `who` in through `provider`: an existing account by its address, or a new one if the
 * policy lets them sign up; the sign-in (and a sign-up) is recorded in the account's Activity
 * in the same statement, from the client address `ip`.
 */
export async function signInWithProvider(
  ctx: Pick<RequestContext, 'http' | 'config' | 'clock'>,
  { who, provider, ip }: { who: ProviderIdentity; provider: string; ip: string | undefined },
): Promise<ConsoleSignIn> {
  if (!who.emailVerified) return { ok: false, reason: 'unverified' };
  const email = who.email.trim().toLowerCase();
  const token = newSecret('session');
  const expiresAt = new Date(ctx.clock.now().getTime() + SESSION_TTL_MS);
  const policyAllows = maySignUp(ctx.config.signup, email, false);
  const sessionId = newId();
  const account = sql`(select id from acc limit 1)`;
  const by: ActivitySource = {
    actor: { type: 'account', id: account },
    via: 'console',
    ip: ip?.trim() || null,
  };
  const signedUp = activityStatement(
    by,
    {
      action: 'account.create',
      target: { type: 'account', id: account, name: email },
      projectId: null,
      accountId: account,
      details: { provider },
    },
    sql`exists (select 1 from made)`,
  );
  const signedIn = activityStatement(
    by,
    {
      action: 'session.create',
      target: { type: 'session', id: sessionId },
      projectId: null,
      accountId: account,
      details: { provider },
    },
    sql`exists (select 1 from opened)`,
  );
  const { rows } = await ctx.http.execute<{ account_id: string | null; created: boolean }>(sql`
    with found as (select id from accounts where email = ${email}),
    invited as (
      select exists (select 1 from invitations where email = ${email} and accepted_at is null
                       and revoked_at is null and expires_at > now()) as yes),
    made as (
      insert into accounts (id, email, name)
      select ${newId()}::uuid, ${email}, ${who.name}
       where not exists (select 1 from found) and (${policyAllows} or (select yes from invited))
      on conflict (email) do nothing
      returning id),
    acc as (select id, false as created from found union all select id, true from made),
    opened as (
      insert into account_tokens (id, account_id, kind, token_hash, expires_at)
      select ${sessionId}::uuid, id, 'session', ${await sha256Hex(token)}, ${expiresAt.toISOString()}::timestamptz
        from acc limit 1
      returning account_id),
    signed_up as (${signedUp}),
    signed_in as (${signedIn})
    select (select account_id from opened) as account_id, coalesce((select created from acc limit 1), false) as created`);
  const [row] = rows;
  if (!row?.account_id) return { ok: false, reason: 'not_invited' };
  return {
    ok: true,
    accountId: row.account_id,
    email,
    created: row.created,
    session: { token, expiresAt },
  };
}
