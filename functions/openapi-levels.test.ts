/**
 * Every `level` the OpenAPI document describes, in answers as in requests, names its kind's
 * levels: a client generated from the document gets a union of the levels, never a free string.
 */
import { describe, expect, it } from 'vitest';
import { apiDocument } from './api-document';
import { LEVELS } from './domain/levels';

type Schema = Record<string, unknown>;
const doc = (await apiDocument('http://127.0.0.1:8787')) as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};

/** Follows a `$ref` to its component. */
const resolve = (schema: Schema): Schema =>
  typeof schema.$ref === 'string'
    ? resolve(doc.components.schemas[schema.$ref.split('/').pop() ?? ''] ?? {})
    : schema;

/** Every `level` property (and `levels` item) under `node`, with where it was found. */
function levelsUnder(node: unknown, at: string, out: Array<[string, Schema]> = []): Array<[string, Schema]> {
  if (!node || typeof node !== 'object') return out;
  for (const [key, value] of Object.entries(node as Schema)) {
    const here = `${at}/${key}`;
    if (key === 'properties' && value && typeof value === 'object') {
      const props = value as Record<string, Schema>;
      if (props.level) out.push([`${here}/level`, props.level]);
      const items = props.levels?.items as Schema | undefined;
      if (items) out.push([`${here}/levels/items`, items]);
    }
    levelsUnder(value, here, out);
  }
  return out;
}

/** `node[key]…` as a schema ({} when absent). */
const at = (node: Schema | undefined, ...keys: string[]): Schema =>
  keys.reduce<Schema>((n, key) => (n[key] ?? {}) as Schema, node ?? {});

/** The response body schema of `method path` for `status`. */
const answer = (path: string, method: string, status = '200') =>
  resolve(at(doc.paths[path], method, 'responses', status, 'content', 'application/json', 'schema'));

/** The `level` enum of the items of `field` in an answer. */
const itemLevel = (body: Schema, field: string) =>
  resolve(((body.properties as Record<string, Schema>)[field]?.items ?? {}) as Schema).properties as Record<
    string,
    Schema
  >;

describe('levels in the OpenAPI document', () => {
  it('every level field and levels item, in answers as in requests, is an enum', () => {
    const found = levelsUnder(doc, '');
    expect(found.length).toBeGreaterThan(10);
    const free = found.filter(([, schema]) => !Array.isArray(schema.enum)).map(([at]) => at);
    expect(free).toEqual([]);
  });

  it("a per-service answer's level is exactly its kind's levels", () => {
    const sitesOf = (prefix: string) => itemLevel(answer(`/api/v1/${prefix}/{id}/sites`, 'get'), 'sites');
    expect(sitesOf('databases').level?.enum).toEqual([...LEVELS.database]);
    expect(sitesOf('storage').level?.enum).toEqual([...LEVELS.bucket]);

    for (const [segment, param, kind] of [
      ['databases', 'dbId', 'database'],
      ['buckets', 'bucketId', 'bucket'],
      ['auth-apps', 'authAppId', 'auth_app'],
    ] as const) {
      const listing = answer(`/api/v1/projects/{id}/${segment}/{${param}}/access`, 'get');
      expect(itemLevel(listing, 'sites').level?.enum).toEqual([...LEVELS[kind], null]);
      if (kind === 'auth_app') continue;
      expect(itemLevel(listing, 'principals').level?.enum).toEqual([...LEVELS[kind]]);
      const principals = `/api/v1/projects/{id}/${segment}/{${param}}/principals`;
      expect(itemLevel(answer(principals, 'get'), 'principals').level?.enum).toEqual([...LEVELS[kind]]);
      const shown = answer(principals, 'post', '201').properties as Record<string, Schema>;
      expect(shown.level?.enum).toEqual([...LEVELS[kind]]);
    }
  });

  it("an available connection's levels are its kind's, one alternative per kind", () => {
    const available = doc.components.schemas.AvailableConnection as { oneOf?: Schema[] };
    const perKind = (available.oneOf ?? []).map((alt) => {
      const props = alt.properties as Record<string, Schema>;
      return [props.kind?.enum, at(props.levels, 'items').enum];
    });
    expect(perKind).toEqual(Object.entries(LEVELS).map(([kind, levels]) => [[kind], [...levels]]));
  });
});
