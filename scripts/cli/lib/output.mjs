// @ts-check
/** What the tool prints: tables for people, JSON for scripts, warnings on stderr. */
import Table from 'cli-table3';
import pc from 'picocolors';

/**
 * Whether to colour what goes to `stream`, by picocolors' conventions (NO_COLOR or --no-color
 * turn colour off, FORCE_COLOR or --color turn it on) but decided for that stream: picocolors'
 * default looks only at stdout (and colours whenever CI is set), which put escape codes into
 * a redirected stderr.
 * @param {{ isTTY?: boolean }} stream
 */
function colourWanted(stream) {
  const { env, argv } = process;
  if (env.NO_COLOR || argv.includes('--no-color')) return false;
  if (env.FORCE_COLOR || argv.includes('--color')) return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Colours for stdout and for stderr, each on only when its own stream takes them. */
const stdoutColours = pc.createColors(colourWanted(process.stdout));
const stderrColours = pc.createColors(colourWanted(process.stderr));

/**
 * Prints rows as a table with a bold header (colour only when stdout is a terminal; NO_COLOR is honoured).
 * @param {string[]} head
 * @param {string[][]} rows
 */
export function printTable(head, rows) {
  const table = new Table({
    head: head.map((h) => stdoutColours.bold(h)),
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
  process.stderr.write(`${stderrColours.yellow('warning:')} ${text}\n`);
}

/**
 * An error on stderr.
 * @param {string} text
 */
export function fail(text) {
  process.stderr.write(`${stderrColours.red('error:')} ${text}\n`);
}

/**
 * Runs `work` and, when it takes over a second and stderr is a terminal, shows a line there
 * counting the seconds, ending with the outcome. Without a terminal (scripts, pipes, CI)
 * nothing is added, as git and curl do, so output that programs read never depends on timing.
 * @template T
 * @param {string} label what is being done, e.g. `Creating database main`
 * @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function withProgress(label, work) {
  if (process.stderr.isTTY !== true) return work();
  const started = Date.now();
  /** @type {NodeJS.Timeout | undefined} */
  let ticker;
  let shown = false;
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const show = () => {
    shown = true;
    process.stderr.write(`\r${label}… ${seconds()} s`);
  };
  const first = setTimeout(() => {
    show();
    ticker = setInterval(show, 200);
  }, 1000);
  let outcome = 'failed';
  try {
    const result = await work();
    outcome = 'done';
    return result;
  } finally {
    clearTimeout(first);
    if (ticker) clearInterval(ticker);
    if (shown) process.stderr.write(`\r\x1b[K${label}: ${outcome} after ${seconds()} s\n`);
  }
}
