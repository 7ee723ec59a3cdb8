/**
 * The one logger of the Worker. Each line carries the id of the request (or queue message) it
 * belongs to, taken from the async context the entry point opened with {@link withRequestId},
 * so services log without being handed a logger. Never log secrets.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** Runs `work` with every log line it writes tagged with `requestId`. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return current.run(requestId, work);
}

/** The request id the current work runs under, if any. */
export const currentRequestId = (): string | undefined => current.getStore();

/** What an error contributes to a log line: its message, or its stack where one helps. */
function describe(detail: unknown, stack: boolean): string {
  if (detail instanceof Error) return (stack ? detail.stack : undefined) ?? detail.message;
  return String(detail);
}

function write(level: 'info' | 'warn' | 'error', message: string, detail?: unknown, stack = false): void {
  const id = current.getStore();
  const text = `${id ? `[${id}] ` : ''}${message}${detail === undefined ? '' : ` ${describe(detail, stack)}`}`;
  if (level === 'error') console.error(text);
  else if (level === 'warn') console.warn(text);
  else console.log(text);
}

/** The Worker's log. `detail` is an error (its message) or any value. */
export const log = {
  info: (message: string, detail?: unknown): void => write('info', message, detail),
  warn: (message: string, detail?: unknown): void => write('warn', message, detail),
  error: (message: string, detail?: unknown): void => write('error', message, detail),
  /** An unexpected failure: logged with its stack. */
  failure: (message: string, err: unknown): void => write('error', message, err, true),
};
