/** Which paths name a service by name, and the same path with its id in the name's place. */
import { describe, expect, it } from 'vitest';
import { namedServiceIn } from './by-name';

const ID = '0b6c1c9e-3f1a-4c55-9d0e-1f2a3b4c5d6e';

describe('namedServiceIn', () => {
  it('finds a database, bucket or auth app named in a service or connection path, and puts the id in its place', () => {
    const cases: Array<[string, string, string, string]> = [
      [
        '/api/v1/projects/shop/databases/main/credentials',
        'database',
        'main',
        `/api/v1/projects/shop/databases/${ID}/credentials`,
      ],
      ['/api/v1/projects/shop/buckets/assets', 'bucket', 'assets', `/api/v1/projects/shop/buckets/${ID}`],
      [
        '/api/v1/projects/shop/auth-apps/shop-login/users',
        'auth_app',
        'shop-login',
        `/api/v1/projects/shop/auth-apps/${ID}/users`,
      ],
      [
        '/api/v1/projects/shop/sites/web/connections/bucket/assets/rotate',
        'bucket',
        'assets',
        `/api/v1/projects/shop/sites/web/connections/bucket/${ID}/rotate`,
      ],
    ];
    for (const [path, kind, name, rewritten] of cases) {
      const named = namedServiceIn(path);
      expect([named?.kind, named?.name, named?.project], path).toEqual([kind, name, 'shop']);
      expect(named?.withId(ID)).toBe(rewritten);
    }
  });

  it('leaves ids, listings, bad names and other paths alone', () => {
    for (const path of [
      `/api/v1/projects/shop/databases/${ID}`,
      '/api/v1/projects/shop/databases',
      '/api/v1/projects/shop/databases/Main',
      '/api/v1/projects/shop/databases/%E0%A4%A',
      '/api/v1/projects/shop/sites/web/connections/queue/x',
      '/v1/shop-login/oauth/exchange',
    ])
      expect(namedServiceIn(path), path).toBeNull();
  });
});
