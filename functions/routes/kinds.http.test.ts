/**
 * GET /api/v1/kinds (kinds.ts) on the in-process Worker: the registry's kinds and engines
 * (kinds/catalog.ts), to anyone and cacheable, each kind with its own levels (domain/levels.ts).
 */
import { describe, expect, it } from 'vitest';
import { api } from '../../test/helpers/api';
import { LEVELS } from '../domain/levels';
import { kindCatalog } from '../kinds/catalog';

type Catalog = ReturnType<typeof kindCatalog>;

describe('GET /api/v1/kinds', () => {
  it("answers the registry's kinds and engines without a token, cacheable for five minutes", async () => {
    const res = await api().get<Catalog>('/api/v1/kinds');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body).toEqual(kindCatalog());
  });

  it('gives each kind its own levels, weakest first, and the database kind every engine, the default first', async () => {
    const { body } = await api().get<Catalog>('/api/v1/kinds');
    expect(Object.fromEntries(body.kinds.map((k) => [k.kind, k.levels]))).toEqual(LEVELS);
    expect(body.engines.filter((e) => e.default)).toEqual([body.engines[0]]);
    expect(body.kinds.find((k) => k.kind === 'database')?.engines).toEqual(body.engines.map((e) => e.engine));
  });

  it("gives each kind its services' path, and the fields they are made with only for a kind a plugin registers", async () => {
    const { body } = await api().get<Catalog>('/api/v1/kinds');
    const built = body.kinds.filter((k) => k.kind in LEVELS);
    expect(Object.fromEntries(built.map((k) => [k.kind, k.services_path]))).toEqual({
      database: 'databases',
      bucket: 'buckets',
      auth_app: 'auth-apps',
    });
    expect(built.map((k) => k.creation_fields)).toEqual([null, null, null]);
  });
});
