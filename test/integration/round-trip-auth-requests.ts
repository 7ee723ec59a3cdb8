/**
 * A successful request of every route of the auth service, for round-trip-budgets.test.ts:
 * sign-ins are of a returning user (signed in once before the counted request).
 */
import { expect } from 'vitest';
import { api, uniqueName } from '../helpers/api';
import { appleClaims, appleSignIn, sendCallback } from '../helpers/apple';
import { asClient, browserCookie, githubAccount, oneTimeCode, pkcePair, startSignIn } from '../helpers/oauth';
import { STAND_IN_ISSUER } from '../helpers/provider-stand-in';
import type { Call, RoundTripWorld } from '../helpers/round-trip-fixture';
import { serverKeyOf } from '../helpers/server-key';
import { standardOAuthRequests } from './round-trip-oauth-server-requests';

/** The auth service's requests of `world`, by `METHOD path` as the OpenAPI document names the route. */
export function authRequests(world: RoundTripWorld): Record<string, () => Promise<Call>> {
  const { standIn, worker, app } = world;
  /** Claims of a Google ID token for `app`, the same subject every time (a returning user). */
  const returningGoogleUser = (() => {
    const sub = uniqueName('google');
    const email = `${uniqueName('person')}@example.test`;
    return () => {
      const now = Math.floor(Date.now() / 1000);
      return {
        iss: STAND_IN_ISSUER,
        aud: app.google.web,
        sub,
        email,
        email_verified: true,
        iat: now - 5,
        exp: now + 3600,
        // Each sign-in brings a token of its own: a token signs in once.
        jti: uniqueName('token'),
      };
    };
  })();
  const returningGithubUser = githubAccount();

  /** A refresh token of a fresh session of the app. */
  async function refreshToken(): Promise<string> {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const res = await api(worker.baseUrl).post<{ refresh_token: string }>(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(res.status, res.text).toBe(200);
    return res.body.refresh_token;
  }

  /** An access token of a fresh session of the app. */
  async function accessToken(): Promise<string> {
    const res = await api(worker.baseUrl).post<{ access_token: string }>(
      `/v1/${app.slug}/oauth/id-token`,
      { provider: 'google', id_token: await standIn.signIdToken(returningGoogleUser()) },
      { headers: asClient() },
    );
    expect(res.status, res.text).toBe(200);
    return res.body.access_token;
  }

  /** A successful request of every route of the auth service. */
  return {
    'GET /v1/{appSlug}/.well-known/jwks.json': async () => ({
      method: 'GET',
      path: `/v1/${app.slug}/.well-known/jwks.json`,
    }),
    'GET /v1/{appSlug}/auth/{provider}': async () => {
      const { challenge } = await pkcePair();
      const query = {
        redirect_uri: 'myapp://auth',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      };
      return {
        method: 'GET',
        path: `/v1/${app.slug}/auth/github?${new URLSearchParams(query)}`,
        ok: [302],
        headers: asClient(),
      };
    },
    'GET /v1/{appSlug}/auth/{provider}/callback': async () => {
      const { challenge } = await pkcePair();
      const query = {
        redirect_uri: 'myapp://auth',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      };
      // A returning user: the same GitHub account signed in before the counted callback.
      for (let i = 0; i < 2; i++) {
        const { state } = await startSignIn(worker.baseUrl, app.slug, 'github', query);
        const code = uniqueName('ghcode');
        standIn.githubCode(code, returningGithubUser);
        const path = `/v1/${app.slug}/auth/github/callback?${new URLSearchParams({ code, state })}`;
        if (i === 1) return { method: 'GET', path, headers: browserCookie(state), ok: [302] };
        expect((await api(worker.baseUrl).get(path, { headers: browserCookie(state) })).status).toBe(302);
      }
      throw new Error('unreachable');
    },
    'POST /v1/{appSlug}/auth/{provider}/callback': async () => {
      // Apple's form POST; a returning user: the same Apple account signed in before.
      const claims = appleClaims(world.apple.servicesId);
      const first = await appleSignIn(worker.baseUrl, standIn, app.slug, claims);
      expect((await sendCallback(worker.baseUrl, first.callback)).status).toBe(302);
      const second = await appleSignIn(worker.baseUrl, standIn, app.slug, claims);
      return { ...second.callback, ok: [302] };
    },
    'POST /v1/{appSlug}/oauth/exchange': async () => {
      const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
      return {
        method: 'POST',
        path: `/v1/${app.slug}/oauth/exchange`,
        body: { code, code_verifier: verifier },
        headers: asClient(),
      };
    },
    'POST /v1/{appSlug}/oauth/id-token': async () => {
      const signIn = async (): Promise<Call> => ({
        method: 'POST',
        path: `/v1/${app.slug}/oauth/id-token`,
        body: { provider: 'google', id_token: await standIn.signIdToken(returningGoogleUser()) },
        headers: asClient(),
      });
      const first = await signIn();
      expect(
        (await api(worker.baseUrl).post(first.path, first.body, { headers: first.headers })).status,
      ).toBe(200);
      return signIn();
    },
    'POST /v1/{appSlug}/oauth/nonce': async () => ({
      method: 'POST',
      path: `/v1/${app.slug}/oauth/nonce`,
      headers: asClient(),
    }),
    'POST /v1/{appSlug}/oauth/refresh': async () => ({
      method: 'POST',
      path: `/v1/${app.slug}/oauth/refresh`,
      body: { refresh_token: await refreshToken() },
      headers: asClient(),
    }),
    'POST /v1/{appSlug}/oauth/introspect': async () => {
      const [serverKey, session] = await Promise.all([serverKeyOf(app), accessToken()]);
      return {
        method: 'POST',
        path: `/v1/${app.slug}/oauth/introspect`,
        as: api(worker.baseUrl, serverKey),
        body: { token: session },
      };
    },
    'POST /v1/{appSlug}/logout': async () => ({
      method: 'POST',
      path: `/v1/${app.slug}/logout`,
      body: { refresh_token: await refreshToken() },
      headers: asClient(),
    }),
    ...standardOAuthRequests(world),
  };
}
