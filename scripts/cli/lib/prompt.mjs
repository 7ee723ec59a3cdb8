// @ts-check
/** Confirmation before changes that take something away or widen a key's powers. */
import { createInterface } from 'node:readline/promises';
import { UsageError } from './errors.mjs';

/**
 * Returns when the user agreed (or `yes` was given). Without a terminal to ask on, and
 * without `--yes`, it refuses, so a script never changes things by accident.
 * @param {string} question
 * @param {{ yes?: boolean }} opts
 */
export async function confirm(question, opts) {
  if (opts.yes) return;
  if (!process.stdin.isTTY) {
    throw new UsageError(`${question} needs confirmation, and there is no terminal to ask: pass --yes`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new UsageError('cancelled; nothing changed');
  } finally {
    rl.close();
  }
}
