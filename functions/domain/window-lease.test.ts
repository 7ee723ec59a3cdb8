/**
 * The app-wide exchange window leased to regions in blocks (functions/domain/window-lease.ts):
 * the home never grants past the window's limit, a region spends only what it was granted in
 * the live window, and a lost region's units are lost, never granted twice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { regionOf } from './regions';
import {
  addGrant,
  grantBlock,
  type Lease,
  type LedgerWindow,
  spendUnit,
  unitsLeft,
  wantsBlock,
  windowSpent,
} from './window-lease';

const WINDOW_MS = 15 * 60_000;
const LIMIT = 600;

/** Asks the home for `want` units at `now` on behalf of a region holding `lease`. */
function ask(ledger: LedgerWindow | null, lease: Lease | null, now: number, want = 30) {
  const { window, grant } = grantBlock(ledger, { now, windowMs: WINDOW_MS, limit: LIMIT, want });
  return { ledger: window, lease: addGrant(lease, grant, now), units: grant.units };
}

describe('the leased app window', () => {
  it('20 regions asking and spending in any order never spend more than the limit in one window', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ region: fc.integer({ min: 0, max: 19 }), spend: fc.boolean(), dt: fc.nat(20_000) }),
          {
            maxLength: 3000,
          },
        ),
        (steps) => {
          let ledger: LedgerWindow | null = null;
          const leases: (Lease | null)[] = Array(20).fill(null);
          const spentIn = new Map<number, number>();
          let now = 0;
          for (const { region, spend, dt } of steps) {
            now += dt;
            if (spend) {
              const result = spendUnit(leases[region] ?? null, now);
              if (result.spent && result.lease) {
                leases[region] = result.lease;
                spentIn.set(result.lease.resetsAt, (spentIn.get(result.lease.resetsAt) ?? 0) + 1);
              }
            } else {
              const asked = ask(ledger, leases[region] ?? null, now);
              ledger = asked.ledger;
              leases[region] = asked.lease;
            }
          }
          for (const spent of spentIn.values()) expect(spent).toBeLessThanOrEqual(LIMIT);
        },
      ),
    );
  });

  it('grants all 600 units of a window and then none, in blocks that shrink as the window fills', () => {
    let ledger: LedgerWindow | null = null;
    const blocks: number[] = [];
    for (let i = 0; i < 200; i++) {
      const { window, grant } = grantBlock(ledger, {
        now: 1_000,
        windowMs: WINDOW_MS,
        limit: LIMIT,
        want: 30,
      });
      ledger = window;
      blocks.push(grant.units);
    }
    expect(blocks.reduce((a, b) => a + b, 0)).toBe(LIMIT);
    expect(blocks[0]).toBe(30);
    expect(blocks.filter((b) => b > 0).at(-1)).toBe(1);
    expect(blocks.at(-1)).toBe(0);
  });

  it("a region's units lapse with their window and are never carried into the next", () => {
    const first = ask(null, null, 0);
    expect(unitsLeft(first.lease, WINDOW_MS - 1)).toBe(30);
    expect(unitsLeft(first.lease, WINDOW_MS)).toBe(0);
    expect(spendUnit(first.lease, WINDOW_MS).spent).toBe(false);
    const next = ask(first.ledger, first.lease, WINDOW_MS);
    expect(next.lease).toEqual({ resetsAt: 2 * WINDOW_MS, units: 30, spent: false });
  });

  it("a region's object lost mid-lease loses its units: the home does not grant them again in that window", () => {
    let ledger: LedgerWindow | null = null;
    const leases: (Lease | null)[] = Array(20).fill(null);
    for (let i = 0; ; i++) {
      const asked = ask(ledger, leases[i % 20] ?? null, 0, 30);
      ledger = asked.ledger;
      leases[i % 20] = asked.lease;
      if (asked.units === 0) break;
    }
    expect(leases.reduce((n, lease) => n + unitsLeft(lease, 0), 0)).toBe(LIMIT);
    expect(unitsLeft(leases[3] ?? null, 0)).toBeGreaterThan(0);
    // Region 3 is lost with its units; a fresh object in its place asks again and gets none.
    const replacement = ask(ledger, null, 60_000);
    expect(replacement.units).toBe(0);
    expect(windowSpent(replacement.lease, 60_000)).toBe(true);
    expect(wantsBlock(replacement.lease, 60_000, 0)).toBe(false);
    // With the next window it is granted again.
    expect(ask(replacement.ledger, replacement.lease, WINDOW_MS).units).toBe(30);
  });

  it('a region asks for a block when its units would not cover its outstanding codes plus one', () => {
    const { lease } = ask(null, null, 0, 3);
    expect(wantsBlock(lease, 0, 2)).toBe(false);
    expect(wantsBlock(lease, 0, 3)).toBe(true);
    expect(wantsBlock(null, 0, 0)).toBe(true);
  });
});

describe('the region of a request', () => {
  it("is chosen from request.cf's continent, country and longitude", () => {
    expect(regionOf({ continent: 'NA', longitude: '-122.4' })).toBe('wnam');
    expect(regionOf({ continent: 'NA', longitude: '-74.0' })).toBe('enam');
    expect(regionOf({ continent: 'EU', longitude: '2.3' })).toBe('weur');
    expect(regionOf({ continent: 'EU', longitude: '37.6' })).toBe('eeur');
    expect(regionOf({ continent: 'AS', country: 'AE' })).toBe('me');
    expect(regionOf({ continent: 'AS', country: 'JP' })).toBe('apac');
    expect(regionOf({ continent: 'OC' })).toBe('oc');
    expect(regionOf(undefined)).toBe('enam');
  });
});
