// @ts-check
/** What the tool prints: tables for people, JSON for scripts, warnings on stderr. */
import Table from 'cli-table3';
import pc from 'picocolors';

/**
 * Prints rows as a table with a bold header (colour only on a terminal; NO_COLOR is honoured).
 * @param {string[]} head
 * @param {string[][]} rows
 */
export function printTable(head, rows) {
  const table = new Table({
    head: head.map((h) => pc.bold(h)),
    // cli-table3 colours through its own optional dependency; picocolors does it here instead.
    style: { head: [], border: [] },
    wordWrap: true,
  });
  table.push(...rows);
  process.stdout.write(`${table.toString()}\n`);
}

/**
 * Prints `data` as indented JSON (the `--json` form of every listing).
 * @param {unknown} data
 */
export function printJson(data) {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/**
 * A line for people on stdout.
 * @param {string} text
 */
export function say(text) {
  process.stdout.write(`${text}\n`);
}

/**
 * A warning on stderr.
 * @param {string} text
 */
export function warn(text) {
  process.stderr.write(`${pc.yellow('warning:')} ${text}\n`);
}

/**
 * An error on stderr.
 * @param {string} text
 */
export function fail(text) {
  process.stderr.write(`${pc.red('error:')} ${text}\n`);
}

export { pc };
