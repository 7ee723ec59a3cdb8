/**
 * The code exchange. It is counted against its rate limits and its code is redeemed in one
 * Durable Object call, the object holding the app's codes; the code's record holds everything
 * the answer needs (user, encrypted refresh token stored at issue time), and that object reports
 * blocks set by a disable, a deletion or a disabled app in the same step that burns the code. So
 * the exchange costs one object call and no Postgres round trip at all.
 */

import { isCodeVerifier } from '../../domain/pkce';
import type { Region } from '../../domain/regions';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';
import { countAndRedeemCode } from './code-regions';
import { type CodeRecord, type CodesContext, type TakenCode, verifierMatches } from './one-time-codes';
import { clientChecks, enforce } from './rate-limit';
import { INVALID_CODE, type SessionBody, sessionFromCode } from './sessions';
import { REFUSAL_MESSAGE } from './users';

/** What the client presents. */
export interface ExchangeInput {
  code: string;
  code_verifier: string;
  redirect_uri?: string;
}

/** What counting a request found: the redeemed code, when the request presented one. */
export interface CountedExchange {
  /** Whether the request's code was redeemed by the count (false when it had none to read). */
  presented: boolean;
  taken: TakenCode | null;
}

/**
 * Counts one exchange request of `client` (429 with Retry-After when a limit is spent) and, when
 * `code` is given, redeems it in the same call; the app's window is spent only when the code is
 * live, so a flood of made-up codes never keeps a valid one out. Redeeming deletes the code
 * first, so a wrong verifier burns it; a refused request burns nothing.
 */
export async function countExchange(
  ctx: CodesContext,
  input: { slug: string; client: string; code: string | null; region: Region },
): Promise<CountedExchange> {
  const { slug, client, code, region } = input;
  const { decision, taken } = await countAndRedeemCode(ctx, {
    slug,
    checks: clientChecks('exchange', client),
    code,
    region,
  });
  enforce(decision);
  return { presented: code !== null, taken };
}

/**
 * Redeems the code of a request whose client was already counted without it (its body could not
 * be read before validation), counting the app's window if the code is live.
 */
export async function redeemCounted(
  ctx: CodesContext,
  { slug, code, region }: { slug: string; code: string; region: Region },
): Promise<TakenCode | null> {
  const { decision, taken } = await countAndRedeemCode(ctx, {
    slug,
    checks: [],
    code,
    region,
  });
  enforce(decision);
  return taken;
}

/**
 * The record of a redeemed code its verifier (and redirect_uri, when given) proves; every
 * unusable code is invalid_grant, a disabled user or app 403.
 */
export async function checkedCode({
  input,
  taken,
}: {
  input: ExchangeInput;
  taken: TakenCode | null;
}): Promise<CodeRecord> {
  if (!taken) throw new OAuthError(400, INVALID_CODE, 'invalid_grant');
  const { record, block } = taken;
  // A verifier outside the rules (43 to 128 of A-Z a-z 0-9 - . _ ~) is as wrong as one that does not match.
  if (!isCodeVerifier(input.code_verifier) || !(await verifierMatches(input.code_verifier, record.challenge)))
    throw new OAuthError(400, INVALID_CODE, 'invalid_grant');
  if (input.redirect_uri !== undefined && input.redirect_uri !== record.redirectUri)
    throw new OAuthError(400, INVALID_CODE, 'invalid_grant');
  if (block === 'disabled') throw new OAuthError(403, REFUSAL_MESSAGE.disabled);
  if (block === 'app_disabled') throw new OAuthError(403, 'this app is disabled');
  if (block !== null) throw new OAuthError(400, INVALID_CODE, 'invalid_grant');
  return record;
}

/** Turns a redeemed code and its verifier into a session; every unusable code is invalid_grant. */
export async function exchangeCode(
  ctx: Pick<RequestContext, 'config'>,
  { slug, input, taken }: { slug: string; input: ExchangeInput; taken: TakenCode | null },
): Promise<SessionBody> {
  return sessionFromCode(ctx.config, slug, await checkedCode({ input, taken }));
}
