/**
 * AUTH_SIGNING_JWK is retired: each auth app signs with a key of its own, so a
 * Worker deployed without it serves every route family and signs sessions that verify with the
 * app's JWKS; `npm run secrets` no longer prints it.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, inject } from 'vitest';
import { api } from '../helpers/api';
import { oauthTestWith } from '../helpers/oauth-fixtures';

// An empty value is an unset one (the environment check ignores empty strings).
const it = oauthTestWith({ workerEnv: { AUTH_SIGNING_JWK: '' } });

describe('a Worker deployed without AUTH_SIGNING_JWK', () => {
  it('answers the management API (no 500 BAD_ENVIRONMENT)', async ({ worker }) => {
    const res = await api(worker.baseUrl, inject('operatorToken')).post('/api/v1/accounts', {
      email: `no-signing-key-${Date.now()}@example.test`,
    });
    expect(res.status, res.text).toBe(201);
  });

  it("signs an app's sessions with the app's own key, verifiable with its JWKS", async ({
    worker,
    app,
    session: signedIn,
  }) => {
    const session = await signedIn();
    const jwks = await api(worker.baseUrl).get(`/v1/${app.slug}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    const { protectedHeader } = await jwtVerify(session.access_token, createLocalJWKSet(jwks.body as never), {
      issuer: `${worker.baseUrl}/v1/${app.slug}`,
      audience: app.slug,
    });
    expect(protectedHeader.alg).toBe('ES256');
  });
});

describe('npm run secrets', () => {
  it('prints OPERATOR_TOKEN and ENCRYPTION_KEYS, and no AUTH_SIGNING_JWK', async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'scripts/secrets.ts', '--json'], {
      cwd: resolve(import.meta.dirname, '../..'),
    });
    expect(Object.keys(JSON.parse(stdout)).sort()).toEqual(['ENCRYPTION_KEYS', 'OPERATOR_TOKEN']);
  });
});
