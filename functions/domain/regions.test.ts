/**
 * The region of a sign-in: chosen from where the request arrives, and read back from the
 * one-time code minted there (its first character), so the exchange knows which object holds it.
 */
import { describe, expect, it } from 'vitest';
import { randomToken } from '../lib/ids';
import { isRegion, LOCATION_HINTS, markedFor, regionOf, regionOfCode } from './regions';

describe('the region of a sign-in', () => {
  it('is chosen from the request place: continent, the Middle East by country, east or west by longitude', () => {
    expect(regionOf({ continent: 'NA', longitude: '-122.4' })).toBe('wnam');
    expect(regionOf({ continent: 'NA', longitude: '-73.9' })).toBe('enam');
    expect(regionOf({ continent: 'EU', longitude: '2.35' })).toBe('weur');
    expect(regionOf({ continent: 'EU', longitude: '30.5' })).toBe('eeur');
    expect(regionOf({ continent: 'AS', country: 'AE' })).toBe('me');
    expect(regionOf({ continent: 'AS', country: 'JP' })).toBe('apac');
    expect(regionOf({ continent: 'OC' })).toBe('oc');
    expect(regionOf({ continent: 'AF' })).toBe('afr');
    expect(regionOf({ continent: 'SA' })).toBe('sam');
    // A local run's request carries no place.
    expect(regionOf(undefined)).toBe('enam');
  });

  it('is read back from every code minted in it, which keeps a code’s 43 characters', () => {
    for (const region of LOCATION_HINTS) {
      const code = markedFor(region, randomToken(32));
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(regionOfCode(code)).toBe(region);
    }
    expect(new Set(LOCATION_HINTS.map((r) => markedFor(r, 'x')))).toHaveProperty(
      'size',
      LOCATION_HINTS.length,
    );
  });

  it('is none for a code no region minted', () => {
    expect(regionOfCode('x'.repeat(43))).toBeNull();
    expect(regionOfCode('')).toBeNull();
    expect(isRegion('weur')).toBe(true);
    expect(isRegion('mars')).toBe(false);
  });
});
