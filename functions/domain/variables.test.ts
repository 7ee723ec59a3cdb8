/** The injected-variable naming rules, with properties over random names. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { variableName } from './names';
import {
  availableEnvNames,
  connectionEnvNames,
  type Family,
  type NamedConnection,
  nameOwners,
  patchNames,
  plainHolders,
  suffixedNames,
} from './variables';
// The database engines' families (postgresql, mongodb) come with their descriptors.
import '../kinds/registry';

/** A connection; by default it claims the plain names (the earliest claimant of a family holds them). */
const conn = (
  key: string,
  family: Family,
  name: string,
  createdAt: number,
  holdsPlain = true,
): NamedConnection => ({
  key,
  family,
  name,
  createdAt,
  id: `00000000-0000-4000-8000-${String(createdAt).padStart(12, '0')}`,
  holdsPlain,
});
const namesOf = (conns: NamedConnection[], key: string) => connectionEnvNames(conns).get(key);

describe('injected variables, one row per service of the spec table', () => {
  it('PostgreSQL database: DATABASE_URL plus DATABASE_URL_<NAME>', () => {
    expect(namesOf([conn('d', 'postgresql', 'main-db', 1)], 'd')).toEqual([
      'DATABASE_URL',
      'DATABASE_URL_MAIN_DB',
    ]);
  });
  it('MongoDB database: MONGODB_URI, alias MONGODB_URL, and MONGODB_URI_<NAME> / MONGODB_URL_<NAME>', () => {
    expect(namesOf([conn('m', 'mongodb', 'docs', 1)], 'm')).toEqual([
      'MONGODB_URI',
      'MONGODB_URL',
      'MONGODB_URI_DOCS',
      'MONGODB_URL_DOCS',
    ]);
  });
  it('Bucket: the five STORAGE_* names and the same five as STORAGE_<NAME>_*', () => {
    expect(namesOf([conn('b', 'bucket', 'files', 1)], 'b')).toEqual([
      'STORAGE_ENDPOINT',
      'STORAGE_ACCESS_KEY',
      'STORAGE_SECRET_KEY',
      'STORAGE_BUCKET',
      'STORAGE_REGION',
      'STORAGE_FILES_ENDPOINT',
      'STORAGE_FILES_ACCESS_KEY',
      'STORAGE_FILES_SECRET_KEY',
      'STORAGE_FILES_BUCKET',
      'STORAGE_FILES_REGION',
    ]);
  });
  it('Auth app: four SERVICE_AUTH_* names, PLATFORM_AUTH_APP_ID, and the four again with _<NAME>', () => {
    expect(namesOf([conn('a', 'auth_app', 'shop', 1)], 'a')).toEqual([
      'SERVICE_AUTH_APP_ID',
      'SERVICE_AUTH_URL',
      'SERVICE_AUTH_PUBLIC_URL',
      'SERVICE_AUTH_SERVER_KEY',
      'PLATFORM_AUTH_APP_ID',
      'SERVICE_AUTH_APP_ID_SHOP',
      'SERVICE_AUTH_URL_SHOP',
      'SERVICE_AUTH_PUBLIC_URL_SHOP',
      'SERVICE_AUTH_SERVER_KEY_SHOP',
    ]);
  });
});

describe('the <NAME> rule', () => {
  it('upper-cases and replaces every character not A-Z or 0-9 by _', () => {
    expect(variableName('my-db_2')).toBe('MY_DB_2');
    expect(variableName('a.b c')).toBe('A_B_C');
  });
  it('property: the result is only A-Z 0-9 _, keeps the length, and maps each character independently', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 63 }), (name) => {
        const out = variableName(name);
        expect(out).toMatch(/^[A-Z0-9_]*$/);
        expect(out.length).toBe(name.length);
        for (let i = 0; i < name.length; i++) {
          const ch = name[i] as string;
          const up = ch.toUpperCase();
          expect(out[i]).toBe(up.length === 1 && /[A-Z0-9]/.test(up) ? up : '_');
        }
      }),
    );
  });
  it('property: every suffixed name of a service ends or contains exactly its <NAME>', () => {
    const service = fc.stringMatching(/^[a-z][a-z0-9_-]{0,62}$/);
    const family = fc.constantFrom<Family>('postgresql', 'mongodb', 'bucket', 'auth_app');
    fc.assert(
      fc.property(service, family, (name, fam) => {
        const n = variableName(name);
        for (const v of suffixedNames(fam, name)) {
          expect(v).toMatch(/^[A-Z0-9_]+$/);
          expect(fam === 'bucket' ? v.startsWith(`STORAGE_${n}_`) : v.endsWith(`_${n}`)).toBe(true);
        }
      }),
    );
  });
});

describe('the first service of each kind holds the unsuffixed names', () => {
  it('the earliest connection of a family holds them; the others only their suffixed names', () => {
    const conns = [conn('b', 'postgresql', 'second', 2), conn('a', 'postgresql', 'first', 1)];
    expect(namesOf(conns, 'a')).toEqual(['DATABASE_URL', 'DATABASE_URL_FIRST']);
    expect(namesOf(conns, 'b')).toEqual(['DATABASE_URL_SECOND']);
  });
  it('PostgreSQL and MongoDB each keep their own plain names', () => {
    const conns = [conn('p', 'postgresql', 'p', 1), conn('m', 'mongodb', 'm', 2)];
    expect(plainHolders(conns)).toEqual(new Set(['p', 'm']));
  });
  // contract §9: a running app's DATABASE_URL never starts pointing at another database by itself.
  it('when the holder is disconnected its plain names are unset and no other connection takes them', () => {
    const before = [
      conn('a', 'bucket', 'one', 1),
      conn('b', 'bucket', 'two', 2, false),
      conn('c', 'bucket', 'three', 3, false),
    ];
    const after = before.filter((c) => c.key !== 'a');
    expect(namesOf(after, 'b')).toEqual([
      'STORAGE_TWO_ENDPOINT',
      'STORAGE_TWO_ACCESS_KEY',
      'STORAGE_TWO_SECRET_KEY',
      'STORAGE_TWO_BUCKET',
      'STORAGE_TWO_REGION',
    ]);
    const moved = patchNames(before, after, new Set());
    expect(moved.set).toEqual([]);
    expect(moved.unset).toEqual([
      'STORAGE_ACCESS_KEY',
      'STORAGE_BUCKET',
      'STORAGE_ENDPOINT',
      'STORAGE_ONE_ACCESS_KEY',
      'STORAGE_ONE_BUCKET',
      'STORAGE_ONE_ENDPOINT',
      'STORAGE_ONE_REGION',
      'STORAGE_ONE_SECRET_KEY',
      'STORAGE_REGION',
      'STORAGE_SECRET_KEY',
    ]);
  });
  it('a promoted connection takes the plain names from the holder, which keeps its suffixed names', () => {
    const before = [conn('a', 'postgresql', 'one', 1), conn('b', 'postgresql', 'two', 2, false)];
    const after = [conn('a', 'postgresql', 'one', 1, false), conn('b', 'postgresql', 'two', 2)];
    expect(namesOf(after, 'a')).toEqual(['DATABASE_URL_ONE']);
    expect(namesOf(after, 'b')).toEqual(['DATABASE_URL', 'DATABASE_URL_TWO']);
    expect(patchNames(before, after, new Set(['b']))).toEqual({
      set: ['DATABASE_URL', 'DATABASE_URL_TWO'],
      unset: [],
    });
  });
  it('with no holder, a later connection of the family is offered the plain names again', () => {
    expect(availableEnvNames([conn('a', 'postgresql', 'x', 1, false)], 'postgresql', 'db')).toEqual([
      'DATABASE_URL',
      'DATABASE_URL_DB',
    ]);
  });
  it('a name two services would both produce stays with the earlier one', () => {
    const conns = [conn('x', 'auth_app', 'a-b', 1), conn('y', 'auth_app', 'a_b', 2)];
    expect(nameOwners(conns).get('SERVICE_AUTH_URL_A_B')).toBe('x');
    expect(namesOf(conns, 'y')).toEqual([]);
  });
});

describe('available entries say exactly what connecting would add', () => {
  it('with no service of the family yet: plain and suffixed names', () => {
    expect(availableEnvNames([], 'postgresql', 'db')).toEqual(['DATABASE_URL', 'DATABASE_URL_DB']);
  });
  it('with one already connected: only the suffixed names', () => {
    expect(availableEnvNames([conn('a', 'postgresql', 'x', 1)], 'postgresql', 'db')).toEqual([
      'DATABASE_URL_DB',
    ]);
  });
  it('property: connecting adds exactly the available names', () => {
    const family = fc.constantFrom<Family>('postgresql', 'mongodb', 'bucket', 'auth_app');
    const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(names, fc.array(family, { minLength: 8, maxLength: 8 }), (ns, fams) => {
        const all = ns.map((n, i) => conn(`k${i}`, fams[i] as Family, n, i + 1));
        const current = all.slice(0, -1);
        const next = all[all.length - 1] as NamedConnection;
        const added = new Set(nameOwners(all).keys());
        for (const n of nameOwners(current).keys()) added.delete(n);
        expect(availableEnvNames(current, next.family, next.name).sort()).toEqual([...added].sort());
      }),
    );
  });
});

describe('patches carry exactly what moved', () => {
  it('a level change keeps the env_names but re-sends the connection names', () => {
    const conns = [conn('a', 'postgresql', 'x', 1)];
    expect(patchNames(conns, conns, new Set(['a']))).toEqual({
      set: ['DATABASE_URL', 'DATABASE_URL_X'],
      unset: [],
    });
  });
  it('property: an unchanged set moves nothing', () => {
    const family = fc.constantFrom<Family>('postgresql', 'mongodb', 'bucket', 'auth_app');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(family, fc.stringMatching(/^[a-z]{1,6}$/)), { maxLength: 10 }),
        (items) => {
          const conns = items.map(([f, n], i) => conn(`k${i}`, f, n, i));
          expect(patchNames(conns, conns, new Set())).toEqual({ set: [], unset: [] });
        },
      ),
    );
  });
});
