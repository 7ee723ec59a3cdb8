/**
 * The CodeStore and RateLimiter contracts: single-use records and fixed-window counters, as the
 * OAuth routes rely on them (one scope per object, scopes apart, all-or-nothing counting).
 */
import { expect, it } from 'vitest';
import type { CodeStore } from '../../../functions/adapters/code-store';
import type { RateLimiter } from '../../../functions/adapters/rate-limiter';
import { randomLowerAlnum } from '../../../functions/lib/ids';

const scopeName = () => `contract:${randomLowerAlnum(8)}`;
const MINUTE = 60_000;

export function codeStoreCases(get: () => CodeStore): void {
  it('an issued record is redeemed once, with its value', async () => {
    const scope = get().scope(scopeName());
    await scope.issue('h1', 'value-1', MINUTE, 'user-1');
    expect(await scope.redeem('h1')).toEqual({ value: 'value-1', block: null });
    expect(await scope.redeem('h1')).toBeNull();
  });

  it('scopes are apart: a record of one cannot be redeemed in another', async () => {
    const codes = get();
    const name = scopeName();
    await codes.scope(name).issue('h', 'v', MINUTE, null);
    expect(await codes.scope(scopeName()).redeem('h')).toBeNull();
    expect(await codes.scope(name).redeem('h')).toEqual({ value: 'v', block: null });
  });

  it('a record with no lifetime left is never redeemed', async () => {
    const scope = get().scope(scopeName());
    await scope.issue('gone', 'v', 0, null);
    expect(await scope.redeem('gone')).toBeNull();
  });

  it("a block on the record's subject comes with it; once lifted the next record is clean", async () => {
    const scope = get().scope(scopeName());
    await scope.block('user-2', 'disabled', null);
    await scope.issue('a', 'v', MINUTE, 'user-2');
    expect(await scope.redeem('a')).toEqual({ value: 'v', block: 'disabled' });
    await scope.unblock('user-2');
    await scope.issue('b', 'v', MINUTE, 'user-2');
    expect(await scope.redeem('b')).toEqual({ value: 'v', block: null });
  });

  it('countAndRedeem redeems only while the window allows, and a refused try redeems nothing', async () => {
    const scope = get().scope(scopeName());
    const checks = [{ key: 'client', limit: 1 }];
    await scope.issue('c1', 'v1', MINUTE, null);
    await scope.issue('c2', 'v2', MINUTE, null);
    const first = await scope.countAndRedeem(checks, MINUTE, 'c1');
    expect(first.decision.allowed).toBe(true);
    expect(first.redeemed).toEqual({ value: 'v1', block: null });
    const refused = await scope.countAndRedeem(checks, MINUTE, 'c2');
    expect(refused.decision.allowed).toBe(false);
    expect(refused.redeemed).toBeNull();
    expect(await scope.redeem('c2')).toEqual({ value: 'v2', block: null });
  });
}

export function rateLimiterCases(get: () => RateLimiter): void {
  it('allows `limit` requests in a window, then refuses with a Retry-After within the window', async () => {
    const name = scopeName();
    const checks = [{ key: 'ip', limit: 2 }];
    expect(await get().take(name, checks, MINUTE)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await get().take(name, checks, MINUTE)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await get().take(name, checks, MINUTE);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBeGreaterThan(0);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
  });

  it('all or nothing: a refused request counts against none of its other limits', async () => {
    const name = scopeName();
    expect((await get().take(name, [{ key: 'tight', limit: 1 }], MINUTE)).allowed).toBe(true);
    const both = [
      { key: 'tight', limit: 1 },
      { key: 'wide', limit: 1 },
    ];
    expect((await get().take(name, both, MINUTE)).allowed).toBe(false);
    expect((await get().take(name, [{ key: 'wide', limit: 1 }], MINUTE)).allowed).toBe(true);
  });

  it('scopes are apart: one spent scope leaves another untouched', async () => {
    const spent = scopeName();
    const checks = [{ key: 'k', limit: 1 }];
    await get().take(spent, checks, MINUTE);
    expect((await get().take(spent, checks, MINUTE)).allowed).toBe(false);
    expect((await get().take(scopeName(), checks, MINUTE)).allowed).toBe(true);
  });
}
