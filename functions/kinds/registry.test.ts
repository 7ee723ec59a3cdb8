import { describe, expect, it } from 'vitest';
import { cache } from '../../test/helpers/fake-kind';
import { type DesiredLevel, isKind, isLevelOf, type Kind, kindNames, levelOrDefault } from '../domain/levels';
import { isPlainName } from '../domain/variables';
import { kindOf, kindOfSegment, registerKind, serviceKinds } from './registry';

/** The fake kind's name, as generic code holds it. */
const CACHE = 'cache' as Kind;

describe('registerKind', () => {
  it('makes a kind known with its levels, default, family and path segment, and forgets it all again', () => {
    const unregister = registerKind(cache);
    try {
      expect(kindNames()).toEqual(['database', 'bucket', 'auth_app', 'cache']);
      expect(isKind('cache')).toBe(true);
      expect(isLevelOf(CACHE, 'read-write')).toBe(true);
      expect(isLevelOf(CACHE, 'admin')).toBe(false);
      expect(levelOrDefault({ kind: CACHE } as DesiredLevel)).toEqual({ kind: 'cache', level: 'read' });
      expect(isPlainName('CACHE_URL')).toBe(true);
      expect(kindOfSegment('caches')).toBe('cache');
      expect(kindOf(CACHE).word).toBe('cache');
    } finally {
      unregister();
    }
    expect(isKind('cache')).toBe(false);
    expect(isPlainName('CACHE_URL')).toBe(false);
    expect(kindOfSegment('caches')).toBeUndefined();
    expect(serviceKinds().map((k) => k.name)).toEqual(['database', 'bucket', 'auth_app']);
  });

  it('refuses a kind already registered, a name or plural no path can carry, or a default that is not one of its levels, leaving nothing behind', () => {
    expect(() => registerKind({ ...cache, name: 'database' })).toThrow('kind database is already registered');
    expect(() => registerKind({ ...cache, name: 'Cache-2' })).toThrow('its name takes a-z and _');
    expect(() => registerKind({ ...cache, plural: 'caches/x' })).toThrow('its plural words of a-z');
    expect(() => registerKind({ ...cache, plural: 'caches ' })).toThrow('its plural words of a-z');
    expect(() => registerKind({ ...cache, defaultLevel: 'admin' })).toThrow(
      'its default level must be one of its levels',
    );
    expect(isKind('cache')).toBe(false);
    expect(isPlainName('CACHE_URL')).toBe(false);
  });

  it('refuses a plural whose path segment a project route or another kind has', () => {
    expect(() => registerKind({ ...cache, plural: 'sites' })).toThrow('the path segment sites is taken');
    expect(() => registerKind({ ...cache, plural: 'auth apps' })).toThrow(
      'the path segment auth-apps is taken',
    );
    expect(isKind('cache')).toBe(false);
  });

  it('refuses a table or column that is not a plain identifier, so no statement carries one', () => {
    expect(() => registerKind({ ...cache, table: 'fake_caches; drop table projects' })).toThrow(
      'is no table or column name',
    );
    expect(() => registerKind({ ...cache, shown: ['max_memory_mb', 'x) --'] })).toThrow('"x) --"');
    expect(() => registerKind({ ...cache, derivedFrom: ['Physical'] })).toThrow('"Physical"');
    expect(isKind('cache')).toBe(false);
  });

  it('forgets a kind once: a second call leaves the kind registered again since in place', () => {
    const first = registerKind(cache);
    first();
    const second = registerKind(cache);
    try {
      first();
      expect(isKind('cache')).toBe(true);
      expect(isPlainName('CACHE_URL')).toBe(true);
    } finally {
      second();
    }
    expect(isKind('cache')).toBe(false);
  });
});
