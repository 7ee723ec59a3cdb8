/**
 * The standard token endpoint's grants (docs/contract.md §15): `authorization_code` redeems the
 * same one-time codes as the mobile exchange (POST /v1/{appSlug}/oauth/exchange), counted against the same limits in the
 * same Durable Object step; `refresh_token` rotates as the mobile refresh does. Both
 * answer RFC 6749 §5.1's body, with an ID token when the granted scope has `openid`.
 */

import { hasOpenId } from '../../../domain/oauth-scopes';
import type { Region } from '../../../domain/regions';
import { StandardOAuthError } from '../../../lib/standard-oauth-error';
import type { RequestContext } from '../../../request-context';
import { checkedCode, countExchange } from '../exchange';
import { countSessionRequest } from '../rate-limit';
import { rotateRefreshToken } from '../refresh-tokens';
import { type SessionBody, sessionFromCode } from '../sessions';
import { signIdToken } from './id-tokens';

/** The parameters of a token request (form-encoded or JSON), each as sent. */
export interface TokenParams {
  grant_type?: string;
  code?: string;
  code_verifier?: string;
  redirect_uri?: string;
  client_id?: string;
  refresh_token?: string;
  scope?: string;
}

/** RFC 6749 §5.1's successful answer. */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope?: string;
  id_token?: string;
}

/** The grant types the endpoint takes. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

const invalidRequest = (description: string) => new StandardOAuthError(400, 'invalid_request', description);

/** 401 invalid_client unless `clientId` names this app (a public client only says who it is). */
function checkClient(slug: string, clientId: string | undefined, required: boolean): void {
  if (clientId === undefined) {
    if (required) throw invalidRequest("client_id is required (the auth app's app_id)");
    return;
  }
  if (clientId !== slug)
    throw new StandardOAuthError(401, 'invalid_client', `client_id must be this issuer's app_id, ${slug}`);
}

const tokenAnswer = (
  session: SessionBody,
  scope: string | null,
  idToken: string | undefined,
): TokenAnswer => ({
  access_token: session.access_token,
  token_type: 'Bearer',
  expires_in: session.expires_in,
  refresh_token: session.refresh_token,
  ...(scope ? { scope } : {}),
  ...(idToken ? { id_token: idToken } : {}),
});

/** The first required parameter a request leaves out, named. */
function missing(params: TokenParams, names: (keyof TokenParams)[]): string | undefined {
  return names.find((name) => params[name] === undefined || params[name] === '');
}

/**
 * `grant_type=authorization_code`: the client is counted first (as at the exchange); a
 * well-formed request's code is redeemed in the same call, burnt whatever follows.
 */
async function authorizationCodeGrant(
  ctx: RequestContext,
  { slug, client, region, params }: { slug: string; client: string; region: Region; params: TokenParams },
): Promise<TokenAnswer> {
  const absent = missing(params, ['code', 'code_verifier', 'redirect_uri', 'client_id']);
  const clientOk = params.client_id === undefined || params.client_id === slug;
  const counted = await countExchange(ctx, {
    slug,
    client,
    region,
    code: absent === undefined && clientOk ? (params.code as string) : null,
  });
  checkClient(slug, params.client_id, true);
  if (absent !== undefined) throw invalidRequest(`${absent} is required`);
  const record = await checkedCode({
    input: {
      code: params.code as string,
      code_verifier: params.code_verifier as string,
      redirect_uri: params.redirect_uri,
    },
    taken: counted.taken,
  });
  const session = await sessionFromCode(ctx.config, slug, record);
  const grant = record.oidc;
  const idToken =
    grant && hasOpenId(grant.scope)
      ? await signIdToken(ctx.config, {
          slug,
          signingKey: record.signingKey,
          user: record.user,
          nonce: grant.nonce,
          authTime: grant.authTime,
          profile: grant.scope.split(' ').includes('profile'),
        })
      : undefined;
  return tokenAnswer(session, grant?.scope ?? null, idToken);
}

/** `grant_type=refresh_token`: counted per client as the mobile refresh, then rotated. */
async function refreshTokenGrant(
  ctx: RequestContext,
  { slug, client, params }: { slug: string; client: string; params: TokenParams },
): Promise<TokenAnswer> {
  await countSessionRequest(ctx, { route: 'refresh', slug, client });
  checkClient(slug, params.client_id, false);
  if (!params.refresh_token) throw invalidRequest('refresh_token is required');
  if (params.refresh_token.length > 200)
    throw new StandardOAuthError(400, 'invalid_grant', 'invalid or expired refresh token');
  const rotated = await rotateRefreshToken(ctx, { slug, token: params.refresh_token });
  const { grant, session } = rotated;
  const idToken =
    grant && hasOpenId(grant.scope)
      ? await signIdToken(ctx.config, {
          slug,
          signingKey: rotated.signingKey,
          user: session.user,
          authTime: grant.authTime,
          profile: grant.scope.split(' ').includes('profile'),
        })
      : undefined;
  return tokenAnswer(session, grant?.scope ?? null, idToken);
}

/** Answers a token request of `client` to app `slug` (which exists); RFC 6749 §5.2 errors otherwise. */
export async function tokenGrant(
  ctx: RequestContext,
  input: { slug: string; client: string; region: Region; params: TokenParams },
): Promise<TokenAnswer> {
  const grantType = input.params.grant_type;
  if (grantType === 'authorization_code') return authorizationCodeGrant(ctx, input);
  if (grantType === 'refresh_token') return refreshTokenGrant(ctx, input);
  if (!grantType) throw invalidRequest('grant_type is required');
  throw new StandardOAuthError(
    400,
    'unsupported_grant_type',
    `grant_type must be one of ${GRANT_TYPES.join(', ')}`,
  );
}
