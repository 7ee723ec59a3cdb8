/** How many outside calls one request runs at once. */
const OUTSIDE_PARALLEL = 8;

/** Maps `items` through `work`, at most `limit` at a time, keeping their order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  work: (item: T, i: number) => Promise<R>,
  limit = OUTSIDE_PARALLEL,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T, i);
    }
  });
  await Promise.all(lanes);
  return out;
}
