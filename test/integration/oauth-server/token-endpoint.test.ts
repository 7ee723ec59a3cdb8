/**
 * The standard surface's discovery and token endpoint (docs/contract.md §15), with plain HTTP:
 * form-encoded requests as RFC 6749 sends them, the codes of the mobile browser flow,
 * refresh rotation, RFC 6749 §5.2 errors and no-store.
 */
import { describe, expect } from 'vitest';
import { asClient, oneTimeCode } from '../../helpers/oauth';
import { oauthTest as it } from '../../helpers/oauth-fixtures';

/** POSTs `params` form-encoded to the app's token endpoint. */
async function token(baseUrl: string, slug: string, params: Record<string, string>, client?: string) {
  const res = await fetch(`${baseUrl}/v1/${slug}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...asClient(client) },
    body: new URLSearchParams(params),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('discovery', () => {
  it('both documents name the issuer, the endpoints and exactly the fields contract §15 lists', async ({
    worker,
    app,
  }) => {
    const issuer = `${worker.baseUrl}/v1/${app.slug}`;
    for (const doc of ['openid-configuration', 'oauth-authorization-server']) {
      const res = await fetch(`${issuer}/.well-known/${doc}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/max-age=300/);
      expect(await res.json()).toEqual({
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/oauth/token`,
        revocation_endpoint: `${issuer}/oauth/revoke`,
        introspection_endpoint: `${issuer}/oauth/introspect`,
        userinfo_endpoint: `${issuer}/oauth/userinfo`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'bearer'],
        scopes_supported: ['openid', 'email', 'profile', 'offline_access'],
        id_token_signing_alg_values_supported: ['ES256'],
        authorization_response_iss_parameter_supported: true,
      });
    }
  });

  it('an unknown app has no discovery document (404)', async ({ worker }) => {
    const res = await fetch(`${worker.baseUrl}/v1/no-such-app-xyz/.well-known/openid-configuration`, {
      headers: asClient(),
    });
    expect(res.status).toBe(404);
  });
});

describe('token endpoint', () => {
  it('redeems a one-time code form-encoded, then rotates its refresh token, each answer no-store', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const first = await token(worker.baseUrl, app.slug, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: 'myapp://auth',
      client_id: app.slug,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: expect.stringMatching(/^tth_rt_/),
    });
    const again = await token(worker.baseUrl, app.slug, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: 'myapp://auth',
      client_id: app.slug,
    });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'invalid_grant', error_description: 'invalid or expired code' });

    const refreshed = await token(worker.baseUrl, app.slug, {
      grant_type: 'refresh_token',
      refresh_token: String(first.body.refresh_token),
      client_id: app.slug,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
    const reused = await token(worker.baseUrl, app.slug, {
      grant_type: 'refresh_token',
      refresh_token: String(first.body.refresh_token),
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
  });

  it('takes JSON too, and a code whose verifier is wrong is invalid_grant and burnt', async ({
    standIn,
    worker,
    app,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const body = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'myapp://auth',
      client_id: app.slug,
    };
    const post = (extra: Record<string, string>) =>
      fetch(`${worker.baseUrl}/v1/${app.slug}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...asClient() },
        body: JSON.stringify({ ...body, ...extra }),
      });
    // The verifier with its last character changed (to another one: it may already end in A).
    const wrong = await post({
      code_verifier: `${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}`,
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    const right = await post({ code_verifier: verifier });
    expect(right.status).toBe(400);
  });

  it('answers RFC 6749 §5.2 errors: unsupported_grant_type, invalid_request, invalid_client', async ({
    standIn,
    worker,
    app,
  }) => {
    const unsupported = await token(worker.baseUrl, app.slug, {
      grant_type: 'password',
      client_id: app.slug,
    });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'grant_type must be one of authorization_code, refresh_token',
    });
    const noGrant = await token(worker.baseUrl, app.slug, {});
    expect(noGrant.body.error).toBe('invalid_request');
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const noRedirect = await token(worker.baseUrl, app.slug, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: app.slug,
    });
    expect(noRedirect.status).toBe(400);
    expect(noRedirect.body).toEqual({
      error: 'invalid_request',
      error_description: 'redirect_uri is required',
    });
    const otherClient = await token(worker.baseUrl, app.slug, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: 'myapp://auth',
      client_id: 'someone-else',
    });
    expect(otherClient.status).toBe(401);
    expect(otherClient.body.error).toBe('invalid_client');
    // Neither refusal burnt the code.
    const redeemed = await token(worker.baseUrl, app.slug, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: 'myapp://auth',
      client_id: app.slug,
    });
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    const unknownApp = await token(worker.baseUrl, 'no-such-app-abc', { grant_type: 'refresh_token' });
    expect(unknownApp.status).toBe(401);
    expect(unknownApp.body.error).toBe('invalid_client');
  });

  it('a form body of another type is refused in the same shape (415 invalid_request)', async ({
    worker,
    app,
  }) => {
    const res = await fetch(`${worker.baseUrl}/v1/${app.slug}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', ...asClient() },
      body: 'grant_type=refresh_token',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('the exchange still answers its own shape for the same codes', async ({
    standIn,
    worker,
    app,
    exchange,
  }) => {
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
    const res = await exchange({ code, code_verifier: `${verifier}x` });
    expect(res.body).toEqual({ error: 'invalid or expired code', code: 'invalid_grant' });
  });
});
