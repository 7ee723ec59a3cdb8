/** The house rules of functions/ that a reader relies on: imports run one way, and never in a circle. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, ROOT } from '../helpers/import-graph';

const graph = importGraph();
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

describe('import rules of functions/', () => {
  it('no file imports another that leads back to it (no import cycle)', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('no route imports db/ or adapters/: routes reach data and outside systems through use cases', () => {
    const below = edges
      .filter(({ from }) => from.startsWith('functions/routes/'))
      .filter(({ to }) => to.startsWith('db/') || to.startsWith('functions/adapters/'))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(below).toEqual([]);
  });

  it("no route imports drizzle-orm: a route builds no SQL (its reads are its use cases' queries)", () => {
    const building = [...graph.keys()]
      .filter((file) => file.startsWith('functions/routes/'))
      .filter((file) =>
        ts
          .preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true)
          .importedFiles.some(
            (ref) => ref.fileName === 'drizzle-orm' || ref.fileName.startsWith('drizzle-orm/'),
          ),
      );
    expect(building).toEqual([]);
  });

  it("outside routes/, only the Worker's two apps and the OpenAPI document import routes (one entrance for each request)", () => {
    const MOUNTERS = ['functions/auth-edge.ts', 'functions/management-app.ts', 'functions/api-document.ts'];
    const reached = edges
      .filter(({ from, to }) => !from.startsWith('functions/routes/') && to.startsWith('functions/routes/'))
      .filter(({ from }) => !MOUNTERS.includes(from))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(reached).toEqual([]);
  });

  it('domain/ and lib/ import nothing of routes, use cases, adapters or db', () => {
    const leaves = edges
      .filter(({ from }) => /^functions\/(domain|lib)\//.test(from))
      .filter(({ to }) => !/^functions\/(domain|lib)\//.test(to))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(leaves).toEqual([]);
  });

  it('db/ imports nothing of functions/ (the schema and its client sit below every use case)', () => {
    const upward = [...importGraph(['db'])]
      .flatMap(([from, targets]) => targets.map((to) => `${from} -> ${to}`))
      .filter((edge) => edge.includes('-> functions/'));
    expect(upward).toEqual([]);
  });
});
