/**
 * A successful request of each of `tether login`'s routes, for
 * round-trip-budgets.test.ts: the browser flow's code and the device grant each start fresh,
 * approved by a dashboard session of the fixture's owner.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { api } from '../helpers/api';
import type { Call, RoundTripWorld } from '../helpers/round-trip-fixture';

/** The CLI sign-in requests of `world`, by `METHOD path` as the OpenAPI document names the route. */
export function cliRequests(world: RoundTripWorld): Record<string, () => Promise<Call>> {
  const { s, worker } = world;
  /** A dashboard session of the fixture's owner: only a person in a browser authorizes the CLI. */
  async function dashboard() {
    const res = await s.as.post<{ token: string }>('/api/v1/account/sessions');
    expect(res.status, res.text).toBe(201);
    return api(worker.baseUrl, res.body.token);
  }
  /** The browser flow's authorization for a fresh PKCE pair: its request body and verifier. */
  function authorization() {
    const verifier = randomBytes(32).toString('base64url');
    const body = {
      redirect_uri: 'http://127.0.0.1:49152/callback',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'st',
      name: 'round-trips',
    };
    return { body, verifier };
  }
  /** A started device grant. */
  async function deviceGrant() {
    const res = await api(worker.baseUrl).post<{ device_code: string; user_code: string }>(
      '/api/v1/cli/device',
      { name: 'round-trips' },
    );
    expect(res.status, res.text).toBe(200);
    return res.body;
  }

  return {
    'POST /api/v1/cli/authorizations': async () => ({
      method: 'POST',
      path: '/api/v1/cli/authorizations',
      body: authorization().body,
      as: await dashboard(),
    }),
    'POST /api/v1/cli/token': async () => {
      const { body, verifier } = authorization();
      const issued = await (await dashboard()).post<{ redirect_to: string }>(
        '/api/v1/cli/authorizations',
        body,
      );
      expect(issued.status, issued.text).toBe(201);
      const code = new URL(issued.body.redirect_to).searchParams.get('code');
      return {
        method: 'POST',
        path: '/api/v1/cli/token',
        body: { grant_type: 'authorization_code', code, code_verifier: verifier },
        as: api(worker.baseUrl),
      };
    },
    'POST /api/v1/cli/device': async () => ({
      method: 'POST',
      path: '/api/v1/cli/device',
      body: { name: 'round-trips' },
      as: api(worker.baseUrl),
    }),
    'POST /api/v1/cli/device/decision': async () => ({
      method: 'POST',
      path: '/api/v1/cli/device/decision',
      body: { user_code: (await deviceGrant()).user_code, approve: true },
      as: await dashboard(),
    }),
    'POST /api/v1/cli/device/lookup': async () => ({
      method: 'POST',
      path: '/api/v1/cli/device/lookup',
      body: { user_code: (await deviceGrant()).user_code },
      as: await dashboard(),
    }),
  };
}
