/**
 * The standard surface with the other libraries apps use (docs/contract.md §15), none given
 * code of Tether's own: oauth4webapi and AppAuth-JS (the protocol code of AppAuth iOS and
 * Android) sign in with PKCE through the Google stand-in and validate the ID token; a jose
 * remote JWKS fetched before a signing-key rotation verifies tokens signed after it; Expo Go's
 * exp:// origin signs in; refused browser sign-ins show a page that says why.
 */
import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { describe, expect } from 'vitest';
import { asClient, createTestAuthApp } from '../../helpers/oauth';
import { oauthTest as it } from '../../helpers/oauth-fixtures';
import { googleBrowser } from '../../helpers/standard-oauth';

const http = { [oauth.allowInsecureRequests]: true };

/** oauth4webapi's sign-in to `slug` back to `redirectUri`; returns the processed token answer. */
async function oauth4webapiSignIn(
  baseUrl: string,
  standIn: Parameters<typeof googleBrowser>[0],
  slug: string,
  redirectUri: string,
) {
  const issuer = new URL(`${baseUrl}/v1/${slug}`);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...http }),
  );
  const client: oauth.Client = { client_id: slug };
  const verifier = oauth.generateRandomCodeVerifier();
  const nonce = oauth.generateRandomNonce();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    client_id: slug,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    provider: 'google',
  }).toString();
  const back = await googleBrowser(standIn, url.href);
  const params = oauth.validateAuthResponse(as, client, new URL(back), state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri,
    verifier,
    http,
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: nonce,
    requireIdToken: true,
  });
  await oauth.validateApplicationLevelSignature(as, response, http);
  return { as, result, issuer: issuer.href };
}

describe('oauth4webapi', () => {
  it('signs in with PKCE, validates the ID token (claims and signature) and refreshes', async ({
    standIn,
    worker,
    app,
  }) => {
    const { as, result, issuer } = await oauth4webapiSignIn(
      worker.baseUrl,
      standIn,
      app.slug,
      'myapp://auth',
    );
    const claims = oauth.getValidatedIdTokenClaims(result);
    expect(claims).toMatchObject({ iss: issuer, aud: app.slug });
    expect(result.scope).toBe('openid email');
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      { client_id: app.slug },
      await oauth.refreshTokenGrantRequest(
        as,
        { client_id: app.slug },
        oauth.None(),
        result.refresh_token as string,
        http,
      ),
    );
    expect(oauth.getValidatedIdTokenClaims(refreshed)?.sub).toBe(claims?.sub);
  });
});

describe('AppAuth-JS', () => {
  it('discovers, signs in with its PKCE request, exchanges the code with its token handler, and the ID token verifies', async ({
    standIn,
    worker,
    app,
  }) => {
    const appauth = await import('@openid/appauth');
    const { NodeCrypto, NodeRequestor } = await import('@openid/appauth/built/src/node_support/index.js');
    const issuer = `${worker.baseUrl}/v1/${app.slug}`;
    const requestor = new NodeRequestor();
    const configuration = await appauth.AuthorizationServiceConfiguration.fetchFromIssuer(issuer, requestor);
    const request = new appauth.AuthorizationRequest(
      {
        client_id: app.slug,
        redirect_uri: 'myapp://auth',
        scope: 'openid email',
        response_type: appauth.AuthorizationRequest.RESPONSE_TYPE_CODE,
        extras: { provider: 'google', nonce: 'appauth-nonce' },
      },
      new NodeCrypto(),
      true,
    );
    await request.setupCodeVerifier();
    // The handler's own URL building (AuthorizationRequestHandler.buildRequestUrl), with a
    // "browser" that is the test's googleBrowser instead of a window or a system browser.
    class TestBrowserHandler extends appauth.AuthorizationRequestHandler {
      back = '';
      async performAuthorizationRequest(
        config: InstanceType<typeof appauth.AuthorizationServiceConfiguration>,
        req: InstanceType<typeof appauth.AuthorizationRequest>,
      ) {
        this.back = await googleBrowser(standIn, this.buildRequestUrl(config, req));
      }
      protected async completeAuthorizationRequest() {
        const query = this.utils.parseQueryString(this.back.slice(this.back.indexOf('?') + 1));
        return {
          request,
          response: new appauth.AuthorizationResponse({ code: query.code ?? '', state: query.state ?? '' }),
          error: null,
        };
      }
    }
    const handler = new TestBrowserHandler(new appauth.BasicQueryStringUtils(), new NodeCrypto());
    let done: { code: string; state: string } | undefined;
    const notifier = new appauth.AuthorizationNotifier();
    notifier.setAuthorizationListener((_req, response) => {
      if (response) done = { code: response.code, state: response.state };
    });
    handler.setAuthorizationNotifier(notifier);
    await handler.performAuthorizationRequest(configuration, request);
    await handler.completeAuthorizationRequestIfPossible();
    expect(done?.state).toBe(request.state);
    const tokenHandler = new appauth.BaseTokenRequestHandler(requestor);
    const tokens = await tokenHandler.performTokenRequest(
      configuration,
      new appauth.TokenRequest({
        client_id: app.slug,
        redirect_uri: 'myapp://auth',
        grant_type: appauth.GRANT_TYPE_AUTHORIZATION_CODE,
        code: done?.code ?? '',
        extras: { code_verifier: request.internal?.code_verifier ?? '' },
      }),
    );
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(tokens.idToken as string, jwks, { issuer, audience: app.slug });
    expect(payload.nonce).toBe('appauth-nonce');
    const refreshed = await tokenHandler.performTokenRequest(
      configuration,
      new appauth.TokenRequest({
        client_id: app.slug,
        redirect_uri: 'myapp://auth',
        grant_type: appauth.GRANT_TYPE_REFRESH_TOKEN,
        refresh_token: tokens.refreshToken,
      }),
    );
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    await tokenHandler.performRevokeTokenRequest(
      configuration,
      new appauth.RevokeTokenRequest({
        token: refreshed.refreshToken as string,
        token_type_hint: 'refresh_token',
      }),
    );
  });
});

describe('signing keys are published before they sign', () => {
  it('a remote JWKS fetched before a rotation verifies a token signed right after it, with no refetch', async ({
    worker,
    app,
    session,
  }) => {
    const issuer = `${worker.baseUrl}/v1/${app.slug}`;
    let fetches = 0;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`), {
      [customFetch]: (...args: Parameters<typeof fetch>) => {
        fetches++;
        return fetch(...args);
      },
    });
    const before = await session();
    await jwtVerify(before.access_token, jwks, { issuer, audience: app.slug });
    expect(fetches).toBe(1);
    const jwksAnswer = await fetch(`${issuer}/.well-known/jwks.json`);
    expect(
      Number(/max-age=(\d+)/.exec(jwksAnswer.headers.get('cache-control') ?? '')?.[1]),
    ).toBeLessThanOrEqual(300);
    const rotated = await app.admin.post<{ kid: string }>(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/signing-key/rotate`,
    );
    expect(rotated.status, rotated.text).toBe(200);
    const after = await session();
    const { protectedHeader } = await jwtVerify(after.access_token, jwks, { issuer, audience: app.slug });
    expect(protectedHeader.kid).toBe(rotated.body.kid);
    expect(fetches).toBe(1);
    // The token signed before the rotation still verifies (its key is retired, not gone).
    await jwtVerify(before.access_token, createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), {
      issuer,
      audience: app.slug,
    });
  });
});

describe('Expo Go', () => {
  it('exp://192.168.1.5:8081 registers and completes a PKCE sign-in (only a redirect string: nothing is sent there)', async ({
    standIn,
    worker,
  }) => {
    const expo = await createTestAuthApp(worker.baseUrl, { origins: ['exp://192.168.1.5:8081'] });
    const redirectUri = 'exp://192.168.1.5:8081/--/auth';
    const { result } = await oauth4webapiSignIn(worker.baseUrl, standIn, expo.slug, redirectUri);
    expect(result.access_token).toBeTruthy();
    // Another port of the same host is another development server: not registered.
    const other = await fetch(
      `${worker.baseUrl}/v1/${expo.slug}/oauth/authorize?${new URLSearchParams({
        client_id: expo.slug,
        redirect_uri: 'exp://192.168.1.5:8082/--/auth',
        response_type: 'code',
      })}`,
      { headers: { accept: 'text/html', ...asClient() }, redirect: 'manual' },
    );
    expect(other.status).toBe(400);
  });
});

describe('readable failures', () => {
  const page = (url: string) =>
    fetch(url, { headers: { accept: 'text/html,application/xhtml+xml', ...asClient() }, redirect: 'manual' });

  it('a browser sign-in for an unknown app shows a page naming the problem and the fix', async ({
    worker,
  }) => {
    const res = await page(`${worker.baseUrl}/v1/no-such-app-q1/auth/google?redirect_uri=myapp://auth`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('unknown app');
    expect(html).toContain('No auth app has the app_id');
    expect(html).toContain('<meta name="tether-error" content="unknown_app">');
  });

  it('a disabled provider shows a page naming the provider and how to turn it on; JSON clients keep their answer', async ({
    worker,
  }) => {
    const off = await createTestAuthApp(worker.baseUrl, { github: false });
    const url = `${worker.baseUrl}/v1/${off.slug}/auth/github?redirect_uri=myapp://auth&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`;
    const res = await page(url);
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('provider github is not enabled for this app');
    expect(html).toContain(`tether auth provider ${off.slug} github`);
    const json = await fetch(url, { headers: asClient(), redirect: 'manual' });
    expect([json.status, await json.json()]).toEqual([
      400,
      { error: 'provider github is not enabled for this app' },
    ]);
  });

  it('/oauth/authorize with an unregistered redirect_uri shows a page and never redirects', async ({
    worker,
    app,
  }) => {
    const res = await page(
      `${worker.baseUrl}/v1/${app.slug}/oauth/authorize?client_id=${app.slug}&redirect_uri=https://evil.example/cb&response_type=code`,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('Allowed Origins');
  });

  it('/oauth/authorize errors after a good redirect_uri go back to it as RFC 6749 says, with state and iss', async ({
    worker,
    app,
  }) => {
    const res = await page(
      `${worker.baseUrl}/v1/${app.slug}/oauth/authorize?client_id=${app.slug}&redirect_uri=myapp://auth&response_type=code&state=s1&provider=google`,
    );
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/code_challenge/);
    expect(back.searchParams.get('state')).toBe('s1');
    expect(back.searchParams.get('iss')).toBe(`${worker.baseUrl}/v1/${app.slug}`);
  });

  it('/oauth/authorize without a provider shows a page to choose among the enabled ones', async ({
    worker,
    app,
  }) => {
    const res = await page(
      `${worker.baseUrl}/v1/${app.slug}/oauth/authorize?client_id=${app.slug}&redirect_uri=myapp://auth&response_type=code&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
    );
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('provider=google');
    expect(html).toContain('provider=github');
  });
});
