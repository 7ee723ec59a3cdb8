/**
 * Scripts of any origin may call the token routes, logout and the JWKS (CORS without
 * credentials), as a web app or a webview app (origin capacitor://localhost) does; preflights
 * are answered before rate counting, and the browser-redirect routes stay navigation-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asClient, createTestAuthApp, newClient, startOAuthWorker, type TestAuthApp } from '../helpers/oauth';
import { type ProviderStandIn, startProviderStandIn } from '../helpers/provider-stand-in';
import type { ExtraWorker } from '../helpers/worker';

let standIn: ProviderStandIn;
let worker: ExtraWorker;
let app: TestAuthApp;

beforeAll(async () => {
  standIn = await startProviderStandIn();
  worker = await startOAuthWorker(standIn);
  app = await createTestAuthApp(worker.baseUrl);
});

afterAll(async () => {
  await worker?.stop();
  await standIn?.close();
});

const WEBVIEW = 'capacitor://localhost';
const url = (path: string) => `${worker.baseUrl}/v1/${app.slug}/${path}`;

function preflight(path: string, client: string) {
  return fetch(url(path), {
    method: 'OPTIONS',
    headers: {
      origin: WEBVIEW,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
      ...asClient(client),
    },
  });
}

function post(path: string, body: unknown, client: string) {
  return fetch(url(path), {
    method: 'POST',
    headers: { origin: WEBVIEW, 'content-type': 'application/json', ...asClient(client) },
    body: JSON.stringify(body),
  });
}

const FAKE_CODE = { code: 'A'.repeat(43), code_verifier: 'v'.repeat(43) };

describe('CORS on the auth routes', () => {
  it('a preflight of each token route and logout is 204 allowing POST with a JSON body from any origin', async () => {
    for (const path of ['oauth/exchange', 'oauth/id-token', 'oauth/refresh', 'logout']) {
      const res = await preflight(path, newClient());
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-methods'), path).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase(), path).toContain('content-type');
      expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
  });

  it('answers carry Access-Control-Allow-Origin, errors and 429 included, and expose Retry-After', async () => {
    const client = newClient();
    const refused = await post('oauth/exchange', FAKE_CODE, client);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    for (let i = 1; i < 20; i++) expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(400);
    const limited = await post('oauth/exchange', FAKE_CODE, client);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    expect(limited.headers.get('access-control-expose-headers')).toContain('Retry-After');
    const jwks = await fetch(url('.well-known/jwks.json'), { headers: { origin: WEBVIEW } });
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('preflights are not counted: 30 of them leave a client its 20 exchanges', async () => {
    const client = newClient();
    for (let i = 0; i < 30; i++) expect((await preflight('oauth/exchange', client)).status).toBe(204);
    for (let i = 0; i < 20; i++) expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(400);
    expect((await post('oauth/exchange', FAKE_CODE, client)).status).toBe(429);
  });

  it('the browser sign-in routes are navigations, not script calls: no CORS headers', async () => {
    const res = await fetch(`${url('auth/github')}?redirect_uri=myapp://auth`, {
      headers: { origin: WEBVIEW },
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
