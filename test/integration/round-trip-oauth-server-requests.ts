/**
 * A successful request of every route of the standard authorization server (docs/contract.md
 * §15), for round-trip-budgets.test.ts: the same one-time codes and sessions as the
 * mobile routes, sent as RFC 6749 clients send them (form-encoded).
 */
import { expect } from 'vitest';
import { api } from '../helpers/api';
import { asClient, oneTimeCode, pkcePair } from '../helpers/oauth';
import type { Call, RoundTripWorld } from '../helpers/round-trip-fixture';

/** A form-encoded POST of `params` to `path`, as a mobile client sends it. */
function formCall(path: string, params: Record<string, string>): Call {
  return {
    method: 'POST',
    path,
    rawBody: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...asClient() },
  };
}

/** The standard routes' requests of `world`, by `METHOD path` as the OpenAPI document names them. */
export function standardOAuthRequests(world: RoundTripWorld): Record<string, () => Promise<Call>> {
  const { standIn, worker, app } = world;
  const issuer = `/v1/${app.slug}`;

  /** The answer of a fresh authorization-code grant: its access and refresh tokens. */
  async function grantedTokens(): Promise<{ access_token: string; refresh_token: string }> {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const call = formCall(`${issuer}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: 'myapp://auth',
      client_id: app.slug,
    });
    const res = await fetch(`${worker.baseUrl}${call.path}`, {
      method: 'POST',
      headers: call.headers,
      body: call.rawBody,
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { access_token: string; refresh_token: string };
  }

  const userinfo = (method: 'GET' | 'POST') => async (): Promise<Call> => {
    const { access_token } = await grantedTokens();
    return { method, path: `${issuer}/oauth/userinfo`, as: api(worker.baseUrl, access_token) };
  };

  return {
    'GET /v1/{appSlug}/.well-known/openid-configuration': async () => ({
      method: 'GET',
      path: `${issuer}/.well-known/openid-configuration`,
    }),
    'GET /v1/{appSlug}/.well-known/oauth-authorization-server': async () => ({
      method: 'GET',
      path: `${issuer}/.well-known/oauth-authorization-server`,
    }),
    'GET /v1/{appSlug}/oauth/authorize': async () => {
      const { challenge } = await pkcePair();
      const query = {
        response_type: 'code',
        client_id: app.slug,
        redirect_uri: 'myapp://auth',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'round-trip',
        provider: 'github',
      };
      return {
        method: 'GET',
        path: `${issuer}/oauth/authorize?${new URLSearchParams(query)}`,
        ok: [302],
        headers: asClient(),
      };
    },
    'POST /v1/{appSlug}/oauth/token': async () => {
      const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
      return formCall(`${issuer}/oauth/token`, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'myapp://auth',
        client_id: app.slug,
      });
    },
    'POST /v1/{appSlug}/oauth/revoke': async () => {
      const { refresh_token } = await grantedTokens();
      return formCall(`${issuer}/oauth/revoke`, { token: refresh_token, token_type_hint: 'refresh_token' });
    },
    'GET /v1/{appSlug}/oauth/userinfo': userinfo('GET'),
    'POST /v1/{appSlug}/oauth/userinfo': userinfo('POST'),
  };
}
