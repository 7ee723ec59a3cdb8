/**
 * RFC 7009 for access tokens (docs/contract.md §15), driven by openid-client 6 with nothing of
 * Tether's own: an access token revoked at /oauth/revoke is refused by UserInfo and is inactive
 * at introspection from then on, while its session (the refresh token) and the other tokens of
 * the app stay good; a token the app did not sign revokes nothing.
 */
import * as client from 'openid-client';
import { expect } from 'vitest';
import { createTestAuthApp } from '../../helpers/oauth';
import { oauthTest as it } from '../../helpers/oauth-fixtures';
import type { ProviderStandIn } from '../../helpers/provider-stand-in';
import { serverKeyOf } from '../../helpers/server-key';
import { googleBrowser } from '../../helpers/standard-oauth';

/** Discovery of `issuer` (a local http issuer: openid-client's documented option). */
const discover = (issuer: string, clientId: string) =>
  client.discovery(new URL(issuer), clientId, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });

/** A standard sign-in through the Google stand-in: the token endpoint's answer. */
async function signIn(standIn: ProviderStandIn, config: client.Configuration) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'myapp://auth',
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    provider: 'google',
  });
  const back = await googleBrowser(standIn, url.href);
  return client.authorizationCodeGrant(config, new URL(back), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
}

it('a revoked access token is refused by UserInfo and inactive at introspection; its session and other tokens stay good', async ({
  standIn,
  worker,
  app,
}) => {
  const issuer = `${worker.baseUrl}/v1/${app.slug}`;
  const config = await discover(issuer, app.slug);
  const serverKey = await serverKeyOf(app);
  const backend = new client.Configuration(
    config.serverMetadata(),
    app.slug,
    serverKey,
    client.ClientSecretBasic(serverKey),
  );
  client.allowInsecureRequests(backend);

  const tokens = await signIn(standIn, config);
  const other = await signIn(standIn, config);
  const sub = tokens.claims()?.sub as string;
  expect((await client.fetchUserInfo(config, tokens.access_token, sub)).sub).toBe(sub);
  expect((await client.tokenIntrospection(backend, tokens.access_token)).active).toBe(true);

  await client.tokenRevocation(config, tokens.access_token, { token_type_hint: 'access_token' });

  await expect(client.fetchUserInfo(config, tokens.access_token, sub)).rejects.toMatchObject({
    response: expect.objectContaining({ status: 401 }),
  });
  expect(await client.tokenIntrospection(backend, tokens.access_token)).toEqual({ active: false });
  // Revoking it again, or revoking an ID token, is 200 and changes nothing else.
  await client.tokenRevocation(config, tokens.access_token);
  await client.tokenRevocation(config, other.id_token as string);

  // The other sign-in's access token is untouched, and the revoked token's session goes on.
  const otherSub = other.claims()?.sub as string;
  expect((await client.fetchUserInfo(config, other.access_token, otherSub)).sub).toBe(otherSub);
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
  expect((await client.fetchUserInfo(config, refreshed.access_token, sub)).sub).toBe(sub);
  expect((await client.tokenIntrospection(backend, refreshed.access_token)).active).toBe(true);
});

it("another app's revoke endpoint does not revoke this app's access token", async ({
  standIn,
  worker,
  app,
}) => {
  const config = await discover(`${worker.baseUrl}/v1/${app.slug}`, app.slug);
  const tokens = await signIn(standIn, config);
  const elsewhere = await createTestAuthApp(worker.baseUrl);
  const theirs = await discover(`${worker.baseUrl}/v1/${elsewhere.slug}`, elsewhere.slug);
  await client.tokenRevocation(theirs, tokens.access_token);
  const sub = tokens.claims()?.sub as string;
  expect((await client.fetchUserInfo(config, tokens.access_token, sub)).sub).toBe(sub);
});
