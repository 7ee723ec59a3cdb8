/** Loading a module (or what is built from it) on first use, once per isolate. */

/**
 * A function answering `load()`'s promise, started by its first call and kept for the next ones.
 * A failed load is not kept: the next call tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (loading) return loading;
    const attempt = load();
    loading = attempt;
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
    return attempt;
  };
}
