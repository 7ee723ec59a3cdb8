/**
 * Waiting for work the queue does in the background (a credential dropped after disconnect):
 * re-checks a condition until it holds or a bounded time passes, then fails with the last value.
 */

/** Resolves with `probe()`'s value once `accept` holds for it; rejects after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline)
      throw new Error(`${what} did not hold within ${timeoutMs} ms; last value ${JSON.stringify(last)}`);
    // Each check is itself a round trip to the database; a short pause keeps the loop from spinning.
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await probe();
  }
  return last;
}
