/**
 * `tether login` through the browser (RFC 8252 with PKCE): the signed-in person's `Authorize`
 * issues a one-time code (120 s, single use, kept under its hash in a OneTimeCodes object) bound
 * to the CLI's loopback redirect and PKCE challenge; the CLI trades it, with its verifier, for a
 * personal token named after the machine. The device flow (cli-device.ts) ends the same way.
 */
import { CLI_CODE_TTL_SECONDS, CLI_TOKEN_DAYS, callbackUrl } from '../domain/cli-login-rules';
import { sha256Base64url, sha256Hex, timingSafeEqual } from '../lib/crypto';
import { randomToken } from '../lib/ids';
import type { RateDecision } from '../objects/fixed-window';
import { type RequestContext, recordedAs } from '../request-context';
import { type AccountBody, issueAccountToken, readAccount } from './accounts';
import { activitySourceOf } from './activity';

/** The window every CLI login limit is counted in. */
export const CLI_WINDOW_MS = 15 * 60 * 1000;

/** Per-client limits of the CLI login routes, per window. */
export const CLI_LIMITS = {
  /** Code exchanges (POST /cli/token with a code). */
  exchange: 30,
  /** Device authorizations started (POST /cli/device). */
  deviceStarts: 20,
  /** Device polls: ten minutes at five seconds is 120, so two logins at once fit. */
  devicePolls: 300,
} as const;

const CODES_SCOPE = 'cli-login';

/** What a code stands for until the CLI redeems it. */
interface CodeRecord {
  accountId: string;
  /** The dashboard session that pressed Authorize: the CLI token's parent (absent in codes from before). */
  sessionId?: string;
  challenge: string;
  redirectUri: string;
  name: string;
}

/** A browser authorization of the CLI: checked by the route (domain/cli-login-rules.ts) before it gets here. */
export interface CliAuthorization {
  redirectUri: string;
  challenge: string;
  state: string;
  name: string;
}

/** Issues the one-time code of `accountId`'s `Authorize`; where the browser goes next (the CLI's callback). */
export async function authorizeCli(
  ctx: Pick<RequestContext, 'codes'>,
  { accountId, sessionId, ...request }: CliAuthorization & { accountId: string; sessionId: string },
): Promise<{ redirectTo: string }> {
  const code = randomToken();
  const record: CodeRecord = {
    accountId,
    sessionId,
    challenge: request.challenge,
    redirectUri: request.redirectUri,
    name: request.name,
  };
  await ctx.codes
    .scope(CODES_SCOPE)
    .issue(await sha256Hex(code), JSON.stringify(record), CLI_CODE_TTL_SECONDS * 1000, accountId);
  return { redirectTo: callbackUrl(request.redirectUri, { code, state: request.state }) };
}

/** What a CLI login ends with, exactly as contract §10 shapes it: a personal token (shown once) and its account. */
export interface CliLogin {
  token: string;
  account: AccountBody;
}

/** Why a grant was refused, in RFC 6749 / 8628 terms. */
export type GrantRefusal = {
  error:
    | 'invalid_grant'
    | 'authorization_pending'
    | 'slow_down'
    | 'access_denied'
    | 'expired_token'
    | 'too_many_requests';
  description: string;
  retryAfter?: number;
};

/** The refusal of a request a rate limit turned away. */
export const limited = (decision: RateDecision): GrantRefusal => ({
  error: 'too_many_requests',
  description: 'too many requests from this address; wait and try again',
  retryAfter: decision.retryAfter,
});

/**
 * Issues the CLI's personal token (90 days) for `accountId`, recorded as the account's own
 * change made through the CLI, and reads the account for the answer.
 */
export async function issueCliToken(
  ctx: RequestContext,
  input: {
    accountId: string;
    name: string;
    ip: string | undefined;
    flow: 'browser' | 'device';
    /** The session that approved: the token's parent. */
    mintedBy?: string | null;
  },
): Promise<CliLogin | GrantRefusal> {
  const { accountId, name, ip, flow } = input;
  // The request carries no credential: what proved it (a code or a device grant) names the account.
  const activity = activitySourceOf({ type: 'account', accountId }, 'cli', ip);
  const [account] = await readAccount(ctx.http, accountId);
  if (!account) return { error: 'invalid_grant', description: 'the account that approved is gone' };
  const issued = await issueAccountToken(recordedAs(ctx, activity), {
    accountId,
    name,
    expiresInDays: CLI_TOKEN_DAYS,
    mintedBy: input.mintedBy ?? null,
    details: { login: flow },
  });
  return { token: issued.token, account };
}

/**
 * Redeems a browser flow's code with its PKCE verifier (counted against the client's limit in
 * the same object call); `redirectUri`, when the CLI sends it, must be the one authorized.
 */
export async function exchangeCliCode(
  ctx: RequestContext,
  input: {
    client: string;
    ip: string | undefined;
    grant: { code: string; verifier: string; redirectUri?: string };
  },
): Promise<CliLogin | GrantRefusal> {
  const { client, ip, grant } = input;
  const { decision, redeemed } = await ctx.codes
    .scope(CODES_SCOPE)
    .countAndRedeem(
      [{ key: `client:${client}`, limit: CLI_LIMITS.exchange }],
      CLI_WINDOW_MS,
      await sha256Hex(grant.code),
    );
  if (!decision.allowed) return limited(decision);
  const invalid: GrantRefusal = {
    error: 'invalid_grant',
    description: 'the code is unknown, used, expired or not yours',
  };
  if (!redeemed) return invalid;
  const record = JSON.parse(redeemed.value) as CodeRecord;
  if (!timingSafeEqual(await sha256Base64url(grant.verifier), record.challenge)) return invalid;
  if (grant.redirectUri !== undefined && grant.redirectUri !== record.redirectUri) return invalid;
  return issueCliToken(ctx, {
    accountId: record.accountId,
    name: record.name,
    ip,
    flow: 'browser',
    mintedBy: record.sessionId ?? null,
  });
}
