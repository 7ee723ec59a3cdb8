/**
 * openid-client 6 against the real Worker with nothing of Tether's own (docs/contract.md §15):
 * discovery, the authorization code flow with PKCE through the Google stand-in with the ID
 * token's signature, issuer, audience and nonce checked, UserInfo, refresh, introspection with
 * the server key as client_secret_basic, and revocation. Only `allowInsecureRequests`, the
 * library's documented option for a local http issuer.
 */
import * as client from 'openid-client';
import { expect } from 'vitest';
import { oauthTest as it } from '../../helpers/oauth-fixtures';
import { serverKeyOf } from '../../helpers/server-key';
import { googleBrowser } from '../../helpers/standard-oauth';

it('signs in, validates the ID token, reads userinfo, refreshes, introspects with client_secret_basic and revokes', async ({
  standIn,
  worker,
  app,
}) => {
  const issuer = `${worker.baseUrl}/v1/${app.slug}`;
  const config = await client.discovery(new URL(issuer), app.slug, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });
  // Verify the ID token's signature against the app's JWKS too, not only its claims.
  client.enableNonRepudiationChecks(config);
  expect(config.serverMetadata().issuer).toBe(issuer);

  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'myapp://auth',
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    provider: 'google',
  });
  const back = await googleBrowser(standIn, url.href, { name: 'Ada Standard' });
  expect(new URL(back).searchParams.get('iss')).toBe(issuer);

  const tokens = await client.authorizationCodeGrant(config, new URL(back), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  expect(claims).toMatchObject({
    iss: issuer,
    aud: app.slug,
    nonce,
    email_verified: true,
    name: 'Ada Standard',
  });
  expect(typeof claims?.auth_time).toBe('number');
  expect(tokens.scope).toBe('openid email profile');
  expect(tokens.token_type).toBe('bearer');

  const sub = claims?.sub as string;
  const info = await client.fetchUserInfo(config, tokens.access_token, sub);
  expect(info).toEqual({ sub, email: claims?.email, email_verified: true, name: 'Ada Standard' });

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  expect(refreshed.claims()?.sub).toBe(sub);

  const serverKey = await serverKeyOf(app);
  const backend = new client.Configuration(
    config.serverMetadata(),
    app.slug,
    serverKey,
    client.ClientSecretBasic(serverKey),
  );
  client.allowInsecureRequests(backend);
  const introspected = await client.tokenIntrospection(backend, refreshed.access_token);
  expect(introspected).toMatchObject({ active: true, sub, client_id: app.slug });
  // An ID token is not an access token.
  expect((await client.tokenIntrospection(backend, refreshed.id_token as string)).active).toBe(false);

  await client.tokenRevocation(config, refreshed.refresh_token as string);
  await expect(client.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject({
    error: 'invalid_grant',
  });
});
