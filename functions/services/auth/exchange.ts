/**
 * The code exchange. The one-time code's record holds everything the answer needs (user,
 * encrypted refresh token stored at issue time), and its Durable Object reports blocks set
 * by a disable, a deletion or a disabled app in the same step that burns the code, so the
 * exchange needs no Postgres round trip at all.
 */
import type { Bindings, Config } from '../../env';
import { OAuthError } from '../../lib/oauth-error';
import { redeemCode, verifierMatches } from './one-time-codes';
import { invalidGrant, type SessionBody, sessionFromCode } from './sessions';
import { REFUSAL_MESSAGE } from './users';

/** What the client presents. */
export interface ExchangeInput {
  code: string;
  code_verifier: string;
  redirect_uri?: string;
}

/** Redeems a code with its verifier for a session; every unusable code is invalid_grant. */
export async function exchangeCode(
  env: Bindings,
  config: Config,
  slug: string,
  input: ExchangeInput,
): Promise<SessionBody> {
  // Redeeming deletes the code first, so a wrong verifier burns it.
  const taken = await redeemCode(env, slug, input.code);
  if (!taken) throw invalidGrant();
  const { record, block } = taken;
  if (!(await verifierMatches(input.code_verifier, record.challenge))) throw invalidGrant();
  if (input.redirect_uri !== undefined && input.redirect_uri !== record.redirectUri) throw invalidGrant();
  if (block === 'disabled') throw new OAuthError(403, REFUSAL_MESSAGE.disabled);
  if (block === 'app_disabled') throw new OAuthError(403, 'this app is disabled');
  if (block !== null) throw invalidGrant();
  return sessionFromCode(config, slug, record);
}
