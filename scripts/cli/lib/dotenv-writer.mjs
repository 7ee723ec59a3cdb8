// @ts-check
/**
 * Writes variables in dotenv syntax that the `dotenv` package reads back to exactly the same
 * values, in a file that a POSIX shell may also source (`set -a; . ./.env`) without ever
 * executing anything from a value. The rules are the ones the console's download uses too
 * (functions/lib/shell-safe-env.mjs, one writer for every place that writes a dotenv); here the
 * whole file is also parsed back with dotenv before anything is written.
 */
import { parse } from 'dotenv';
import { shellSafeDotenv } from '../../../functions/lib/shell-safe-env.mjs';

export { encodeValue } from '../../../functions/lib/shell-safe-env.mjs';

/** Some values cannot be written so that dotenv reads them back exactly. */
export class UnrepresentableError extends Error {
  /** @param {string[]} names */
  constructor(names) {
    super(`dotenv syntax cannot hold the exact value of ${names.join(', ')}`);
    this.names = names;
  }
}

/**
 * The file text for `vars`, starting with `header` comment lines. Throws
 * {@link UnrepresentableError} naming every variable dotenv could not read back exactly.
 * @param {Record<string, string>} vars
 * @param {string[]} [header]
 */
export function formatDotenv(vars, header = []) {
  return formatEnvFile(vars, header).text;
}

/**
 * The file text for `vars` and the names a shell sourcing it leaves unset (written for dotenv
 * only). Throws {@link UnrepresentableError} naming every variable dotenv could not read back.
 * @param {Record<string, string>} vars
 * @param {string[]} [header]
 * @returns {{ text: string, dotenvOnly: string[] }}
 */
export function formatEnvFile(vars, header = []) {
  const { text, dotenvOnly, failed } = shellSafeDotenv(vars, header);
  if (failed.length > 0) throw new UnrepresentableError(failed);
  assertReadsBack(text, vars);
  return { text, dotenvOnly };
}

/**
 * Parses `text` with dotenv and throws unless it gives exactly `vars`: the guarantee the
 * rules above aim at, checked with the parser users will use.
 * @param {string} text
 * @param {Record<string, string>} vars
 */
function assertReadsBack(text, vars) {
  const back = parse(text);
  const names = new Set([...Object.keys(vars), ...Object.keys(back)]);
  const wrong = [...names].filter((n) => back[n] !== vars[n]);
  if (wrong.length > 0) throw new UnrepresentableError(wrong.sort());
}
