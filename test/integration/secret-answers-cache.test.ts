/**
 * Answers that carry a secret are never kept by a cache (`Cache-Control: no-store`): a
 * database's main credentials, a new principal's password, a new API key, a personal token and
 * a site's effective variables. Pins the bug of secret-bearing API answers carrying no
 * Cache-Control at all.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Seeded, seed } from '../helpers/connections';

let s: Seeded;
let base: string;
let dbId: string;
beforeAll(async () => {
  s = await seed(inject('baseUrl'), 1);
  dbId = (await createDatabase(s.as, s.project.id)).id;
  base = `/api/v1/projects/${s.project.id}`;
});

describe('every answer that carries a secret says Cache-Control: no-store', () => {
  it('credentials, a principal, an API key, a token and the effective variables', async () => {
    const answers = {
      credentials: await s.as.get(`${base}/databases/${dbId}/credentials`),
      principal: await s.as.post(`${base}/databases/${dbId}/principals`, {
        name: 'cache-check',
        level: 'read-only',
      }),
      apiKey: await s.as.post(`${base}/api-keys`, { name: 'cache-check', capabilities: { databases: true } }),
      token: await s.as.post('/api/v1/account/tokens', { name: 'cache-check' }),
      effective: await s.as.get(`${base}/sites/${s.sites[0]?.id}/env/effective`),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect([what, res.status < 300], res.text).toEqual([what, true]);
      expect([what, res.headers.get('cache-control')]).toEqual([what, 'no-store']);
    }
  });
});
