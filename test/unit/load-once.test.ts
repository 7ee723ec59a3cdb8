/** functions/lib/load-once.ts: a module loaded on first use is loaded once, and a failed load is tried again. */
import { expect, it } from 'vitest';
import { loadOnce } from '../../functions/lib/load-once';

it('loads once for every caller, concurrent ones included', async () => {
  let loads = 0;
  const get = loadOnce(async () => ++loads);
  expect(await Promise.all([get(), get()])).toEqual([1, 1]);
  expect(await get()).toBe(1);
  expect(loads).toBe(1);
});

it('forgets a failed load, so the next call loads again', async () => {
  let loads = 0;
  const get = loadOnce(async () => {
    loads++;
    if (loads === 1) throw new Error('offline');
    return 'module';
  });
  await expect(get()).rejects.toThrow('offline');
  expect(await get()).toBe('module');
  expect(await get()).toBe('module');
  expect(loads).toBe(2);
});
