/**
 * CORS of the standard endpoints (docs/contract.md §15): token, revoke and userinfo answer the
 * app's registered origins (an https origin, Expo Go's exact `exp://host:port`, a loopback
 * origin on any port), preflight and request alike, and tell no other origin it may read them;
 * discovery and the JWKS answer any origin.
 */
import { describe, expect } from 'vitest';
import { asClient } from '../../helpers/oauth';
import { oauthTestWith } from '../../helpers/oauth-fixtures';

const REGISTERED = ['https://web.example.com', 'exp://192.168.1.5:8081', 'http://localhost'];

const it = oauthTestWith({ appOptions: { origins: [...REGISTERED, 'myapp://auth'] } });

/** Origins a page or app may call from, each with the origin the answer must allow (null: none). */
const ORIGINS: Array<[string, string | null]> = [
  ['https://web.example.com', 'https://web.example.com'],
  ['exp://192.168.1.5:8081', 'exp://192.168.1.5:8081'],
  ['http://localhost:5173', 'http://localhost:5173'],
  ['https://evil.example.com', null],
  ['exp://192.168.1.5:8082', null],
  ['http://web.example.com', null],
  ['https://web.example.com.evil.test', null],
];

/** The standard endpoints with registered-origin CORS, and a request each answers without a valid token. */
const ENDPOINTS = [
  {
    path: 'oauth/token',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=refresh_token&refresh_token=tth_rt_unknown',
    status: 400,
  },
  {
    path: 'oauth/revoke',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'token=not-a-token',
    status: 200,
  },
  { path: 'oauth/userinfo', method: 'GET', headers: { authorization: 'Bearer not-a-token' }, status: 401 },
] as const;

describe('token, revoke and userinfo answer CORS for the app’s registered origins only', () => {
  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.path}: the preflight and the request allow a registered origin and no other`, async ({
      worker,
      app,
    }) => {
      const url = `${worker.baseUrl}/v1/${app.slug}/${endpoint.path}`;
      for (const [origin, allowed] of ORIGINS) {
        const preflight = await fetch(url, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': endpoint.method,
            'access-control-request-headers': 'authorization, content-type',
            ...asClient(),
          },
        });
        expect(preflight.status, origin).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin'), origin).toBe(allowed);
        if (allowed) {
          expect(preflight.headers.get('access-control-allow-methods')).toContain(endpoint.method);
          expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
            'authorization',
          );
          expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
        }

        const res = await fetch(url, {
          method: endpoint.method,
          headers: { origin, ...endpoint.headers, ...asClient() },
          ...('body' in endpoint ? { body: endpoint.body } : {}),
        });
        expect(res.status, origin).toBe(endpoint.status);
        expect(res.headers.get('access-control-allow-origin'), origin).toBe(allowed);
        if (allowed && endpoint.status === 401)
          expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
      }
    });
  }
});

describe('discovery and the JWKS answer any origin', () => {
  for (const path of [
    '.well-known/openid-configuration',
    '.well-known/oauth-authorization-server',
    '.well-known/jwks.json',
  ])
    it(`${path}`, async ({ worker, app }) => {
      const url = `${worker.baseUrl}/v1/${app.slug}/${path}`;
      for (const [origin] of ORIGINS) {
        const res = await fetch(url, { headers: { origin } });
        expect(res.status, origin).toBe(200);
        expect(res.headers.get('access-control-allow-origin'), origin).toBe('*');
      }
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'GET' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    });
});
