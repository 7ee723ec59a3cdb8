/**
 * One-time codes kept near the user (docs/operations.md, "Codes near the user"), through the
 * use cases the routes call, on the real OneTimeCodes objects in workerd: a code is minted in
 * the object of the region the callback came from and redeemed there in one call; the app's
 * window (600 exchanges per 15 minutes) is leased to regions and never exceeded across them;
 * a block reaches every region, one registering after it too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeScope, CodeStore } from '../../functions/adapters/code-store';
import { LOCATION_HINTS, type Region, regionOfCode } from '../../functions/domain/regions';
import { LEASE_BLOCK } from '../../functions/domain/window-lease';
import {
  blockCodes,
  countAndRedeemCode,
  issueCode,
  unblockCodes,
} from '../../functions/use-cases/sign-in/code-regions';
import type { CodeRecord } from '../../functions/use-cases/sign-in/one-time-codes';
import { RATE_LIMITS } from '../../functions/use-cases/sign-in/rate-limit';
import { startDurableObjects } from '../helpers/durable-objects';

let objects: Awaited<ReturnType<typeof startDurableObjects>>;
beforeAll(async () => {
  objects = await startDurableObjects();
});
afterAll(() => objects.stop());

/** Every object call made through the store: the object's name, the hint it was reached with, the method. */
interface Call {
  name: string;
  near: string | undefined;
  method: string;
}

/** The production store, with each object call recorded. */
function countingStore(inner: CodeStore, calls: Call[]): CodeStore {
  return {
    scope(name, near) {
      const scope = inner.scope(name, near);
      return new Proxy(scope, {
        get(target, method: string) {
          const fn = target[method as keyof CodeScope] as (...args: unknown[]) => unknown;
          return (...args: unknown[]) => {
            calls.push({ name, near, method });
            return fn(...args);
          };
        },
      });
    },
  };
}

let apps = 0;
/** A fresh app and a context whose object calls are recorded. */
function newApp() {
  const calls: Call[] = [];
  return {
    slug: `regions-${Date.now()}-${apps++}`,
    calls,
    ctx: { codes: countingStore(objects.codes, calls) },
  };
}

/** What a code stands for; only its user matters to the objects. */
const recordOf = (userId: string) => ({ userId, appId: 'app' }) as unknown as CodeRecord;

const CLIENT = [{ key: 'client:test', limit: 1_000_000 }];

/** `work` on every item, 25 at a time (every region's objects busy at once, the local runtime not flooded). */
async function inGroups<T, R>(items: T[], work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let at = 0; at < items.length; at += 25)
    out.push(...(await Promise.all(items.slice(at, at + 25).map((item, j) => work(item, at + j)))));
  return out;
}

describe('one-time codes near the user', () => {
  it('are kept in the object of the region the callback came from, marked with it, and redeemed there in one call', async () => {
    const { slug, calls, ctx } = newApp();
    const code = await issueCode(ctx, { slug, record: recordOf('u1'), region: 'weur' });
    expect(regionOfCode(code)).toBe('weur');
    // One call from the Worker: the region's object registers with the app's home itself.
    expect(calls).toEqual([{ name: `codes:${slug}:weur`, near: 'weur', method: 'issueNear' }]);
    calls.length = 0;
    const { decision, taken } = await countAndRedeemCode(ctx, { slug, checks: CLIENT, code, region: 'weur' });
    expect(decision.allowed).toBe(true);
    expect(taken?.record.userId).toBe('u1');
    expect(calls.map((c) => `${c.name}.${c.method}`)).toEqual([`codes:${slug}:weur.redeemNear`]);
    // Burnt: a second exchange finds nothing.
    expect((await countAndRedeemCode(ctx, { slug, checks: CLIENT, code, region: 'weur' })).taken).toBeNull();
  });

  it('a code exchanged from another region is counted there and redeemed where it was minted', async () => {
    const { slug, calls, ctx } = newApp();
    const code = await issueCode(ctx, { slug, record: recordOf('u2'), region: 'apac' });
    calls.length = 0;
    const { taken } = await countAndRedeemCode(ctx, { slug, checks: CLIENT, code, region: 'weur' });
    expect(taken?.record.userId).toBe('u2');
    expect(calls.map((c) => `${c.name}.${c.method}`)).toEqual([
      `codes:${slug}:weur.redeemNear`,
      `codes:${slug}:apac.redeemNear`,
    ]);
  });

  it('a made-up code is counted against its client and looked up nowhere', async () => {
    const { slug, calls, ctx } = newApp();
    const tight = [{ key: 'client:flood', limit: 2 }];
    for (const allowed of [true, true, false]) {
      const { decision, taken } = await countAndRedeemCode(ctx, {
        slug,
        checks: tight,
        code: 'x'.repeat(43),
        region: 'enam',
      });
      expect({ allowed: decision.allowed, taken }).toEqual({ allowed, taken: null });
    }
    expect(new Set(calls.map((c) => c.name))).toEqual(new Set([`codes:${slug}:enam`]));
  });

  it('every region together never admits more than the app window; past it, 429 with Retry-After', async () => {
    const { slug, calls, ctx } = newApp();
    const limit = RATE_LIMITS.exchange.app;
    // 700 sign-ins, skewed over every region: more than the window holds.
    const regions = LOCATION_HINTS.flatMap((r, i) => Array<Region>(i < 4 ? 120 : 44).fill(r)).slice(0, 700);
    const codes = await inGroups(regions, async (region, i) => ({
      region,
      code: await issueCode(ctx, { slug, record: recordOf(`u${i}`), region }),
    }));
    const answers = await inGroups(codes, ({ region, code }) =>
      countAndRedeemCode(ctx, { slug, checks: CLIENT, code, region }),
    );
    const admitted = answers.filter((a) => a.taken !== null).length;
    const refused = answers.filter((a) => !a.decision.allowed);
    expect(admitted).toBeLessThanOrEqual(limit);
    // Units a region was granted and did not spend are lost to the others (never more than a block each).
    expect(admitted).toBeGreaterThanOrEqual(limit - LOCATION_HINTS.length * LEASE_BLOCK);
    expect(admitted + refused.length).toBe(700);
    expect(refused.every((a) => a.decision.retryAfter > 0 && a.taken === null)).toBe(true);
    // One Worker call per sign-in and per exchange: every ask for units went from a region to the home.
    expect(calls).toHaveLength(1400);
  }, 120_000);

  it('a block reaches every region that keeps codes, and a region registering after it', async () => {
    const { slug, ctx } = newApp();
    const before = await Promise.all(
      (['weur', 'apac'] as const).map((region) => issueCode(ctx, { slug, record: recordOf('u3'), region })),
    );
    await blockCodes(ctx, { slug, userId: 'u3', reason: 'disabled' });
    const after = await issueCode(ctx, { slug, record: recordOf('u3'), region: 'oc' });
    const other = await issueCode(ctx, { slug, record: recordOf('u4'), region: 'oc' });
    const take = (code: string) =>
      countAndRedeemCode(ctx, { slug, checks: CLIENT, code, region: regionOfCode(code) as Region });
    for (const code of [...before, after]) expect((await take(code)).taken?.block).toBe('disabled');
    expect((await take(other)).taken?.block).toBeNull();
    await unblockCodes(ctx, { slug, userId: 'u3' });
    const lifted = await issueCode(ctx, { slug, record: recordOf('u3'), region: 'apac' });
    expect((await take(lifted)).taken?.block).toBeNull();
  });
});
