// @ts-check
/**
 * The formats `tether env pull --format` writes: dotenv (the default, which a POSIX shell may
 * also source), JSON (one object of names to values) and shell (`export NAME='value'` lines, each
 * value single-quoted so a shell executes nothing in it).
 */
import { formatEnvFile } from './dotenv-writer.mjs';
import { UsageError } from './errors.mjs';

/** The formats, the first the default. */
export const ENV_FORMATS = /** @type {const} */ (['dotenv', 'json', 'shell']);

/** @typedef {(typeof ENV_FORMATS)[number]} EnvFormat */

/**
 * `word` as a format, or a usage error naming the choices.
 * @param {string} word
 * @returns {EnvFormat}
 */
export function parseEnvFormat(word) {
  const found = ENV_FORMATS.find((f) => f === word);
  if (!found) throw new UsageError(`--format: one of ${ENV_FORMATS.join(', ')} (not "${word}")`);
  return found;
}

/**
 * `value` single-quoted for a POSIX shell: nothing inside is expanded or executed.
 * @param {string} value
 */
export const shellQuote = (value) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * The text of `vars` in `format`, with `header` as comment lines where the format has comments,
 * and the names only dotenv can hold exactly (dotenv format only).
 * @param {Record<string, string>} vars
 * @param {EnvFormat} format
 * @param {string[]} header
 * @returns {{ text: string, dotenvOnly: string[] }}
 */
export function formatVars(vars, format, header) {
  const names = Object.keys(vars).sort();
  if (format === 'json') {
    const sorted = Object.fromEntries(names.map((n) => [n, vars[n]]));
    return { text: `${JSON.stringify(sorted, null, 2)}\n`, dotenvOnly: [] };
  }
  if (format === 'shell') {
    const lines = [
      ...header.map((h) => `# ${h}`),
      ...names.map((n) => `export ${n}=${shellQuote(vars[n] ?? '')}`),
    ];
    return { text: `${lines.join('\n')}\n`, dotenvOnly: [] };
  }
  return formatEnvFile(vars, header);
}
