/** The house rules of functions/ that a reader relies on: imports run one way, and never in a circle. */
import { describe, expect, it } from 'vitest';
import { cycles, importGraph } from '../helpers/import-graph';

const graph = importGraph();
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

/**
 * Route imports of db/ or adapters/ that issue 15 is still moving into services; the list only
 * shrinks. A route that needs data or an outside system asks a service.
 */
const NOT_YET_MOVED = new Set([
  'functions/routes/accounts.ts -> db/schema.ts',
  'functions/routes/api-keys.ts -> db/client.ts',
  'functions/routes/api-keys.ts -> db/schema.ts',
  'functions/routes/buckets.ts -> db/schema.ts',
  'functions/routes/buckets.ts -> functions/adapters/index.ts',
  'functions/routes/connection-schemas.ts -> db/client.ts',
  'functions/routes/connection-schemas.ts -> functions/adapters/index.ts',
  'functions/routes/databases.ts -> db/schema.ts',
  'functions/routes/databases.ts -> functions/adapters/index.ts',
  'functions/routes/deploys.ts -> db/schema.ts',
  'functions/routes/deploys.ts -> functions/adapters/index.ts',
  'functions/routes/env.ts -> db/schema.ts',
  'functions/routes/projects.ts -> db/client.ts',
  'functions/routes/projects.ts -> db/schema.ts',
  'functions/routes/service-sites.ts -> db/schema.ts',
  'functions/routes/shared.ts -> db/schema.ts',
  'functions/routes/sites.ts -> db/schema.ts',
  'functions/routes/tunnel.ts -> functions/adapters/index.ts',
  'functions/routes/tunnel.ts -> functions/adapters/postgres-tunnel.ts',
]);

describe('import rules of functions/', () => {
  it('no file imports another that leads back to it (no import cycle)', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('no route imports db/ or adapters/: routes reach data and outside systems through services', () => {
    const below = edges
      .filter(({ from }) => from.startsWith('functions/routes/'))
      .filter(({ to }) => to.startsWith('db/') || to.startsWith('functions/adapters/'))
      .map(({ from, to }) => `${from} -> ${to}`)
      .filter((edge) => !NOT_YET_MOVED.has(edge));
    expect(below).toEqual([]);
  });

  it('domain/ and lib/ import nothing of routes, services, adapters or db', () => {
    const leaves = edges
      .filter(({ from }) => /^functions\/(domain|lib)\//.test(from))
      .filter(({ to }) => !/^functions\/(domain|lib)\//.test(to))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(leaves).toEqual([]);
  });
});
