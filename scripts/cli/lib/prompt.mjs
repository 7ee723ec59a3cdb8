// @ts-check
/** Confirmation before changes that take something away or widen a key's powers. */
import { createInterface } from 'node:readline/promises';
import { UsageError } from './errors.mjs';

/**
 * Returns when the user agreed to `action` (or `yes` was given). Without a terminal to ask on,
 * and without `--yes`, it refuses, so a script never changes things by accident.
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
  try {
    const answer = await rl.question(`${action}? ${consequence} [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new UsageError('cancelled; nothing changed');
  } finally {
    rl.close();
  }
}
