/** The house rules of functions/ that a reader relies on: imports run one way, and never in a circle. */
import { describe, expect, it } from 'vitest';
import { cycles, importGraph } from '../helpers/import-graph';

const graph = importGraph();
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

/**
 * Routes that still build the adapters themselves until the composition root (issue 15, item 1)
 * hands them over on the context; the list only shrinks. A route that needs data or an outside
 * system asks a service.
 */
const NOT_YET_MOVED = new Set([
  'functions/routes/buckets.ts -> functions/adapters/index.ts',
  'functions/routes/connection-schemas.ts -> functions/adapters/index.ts',
  'functions/routes/databases.ts -> functions/adapters/index.ts',
  'functions/routes/deploys.ts -> functions/adapters/index.ts',
  'functions/routes/tunnel.ts -> functions/adapters/index.ts',
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
