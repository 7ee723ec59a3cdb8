// @ts-check
/** Confirmation before changes that take something away or widen a key's powers. */
import { createInterface } from 'node:readline/promises';
import { UsageError } from './errors.mjs';

const CANCELLED = 'cancelled; nothing changed';

/**
 * Whether `err` is readline giving up on its question: Ctrl-C or Ctrl-D at the prompt rejects
 * it with an AbortError ("Aborted with Ctrl+C"), which is an answer, not a failure.
 * @param {unknown} err
 */
function isAbortedQuestion(err) {
  return (
    err instanceof Error &&
    (err.name === 'AbortError' || /** @type {{ code?: unknown }} */ (err).code === 'ABORT_ERR')
  );
}

/**
 * Returns when the user agreed to `action` (or `yes` was given). Without a terminal to ask on,
 * and without `--yes`, it refuses, so a script never changes things by accident. Anything but
 * yes, Ctrl-C and Ctrl-D included, cancels with exit 1.
 * @param {string} action what will happen, as a question without its question mark
 * @param {string} consequence one sentence saying what it means
 * @param {{ yes?: boolean }} opts
 */
export async function confirm(action, consequence, opts) {
  if (opts.yes) return;
  if (!process.stdin.isTTY) {
    throw new UsageError(`${action}: not confirmed, and there is no terminal to ask; pass --yes to confirm`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let answer;
  try {
    answer = await rl.question(`${action}? ${consequence} [y/N] `);
  } catch (err) {
    if (!isAbortedQuestion(err)) throw err;
    // The cursor is still after the question: the message goes on a line of its own.
    process.stderr.write('\n');
    throw new UsageError(CANCELLED);
  } finally {
    rl.close();
  }
  if (!/^y(es)?$/i.test(answer.trim())) throw new UsageError(CANCELLED);
}
