// @ts-check
/** What the tool prints: tables for people, JSON for scripts, warnings on stderr. */
import pc from 'picocolors';
import { formatTime, isIsoTime, layoutTable, terminalWidth, wrapWords } from './table.mjs';
import { fieldsInWords } from './words.mjs';

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

/** Whether `--wide` was given: tables keep every value whole and times show their exact UTC time. */
let wide = false;

/**
 * Sets the `--wide` mode for what follows (tether.mjs, before a command runs).
 * @param {boolean} value
 */
export function setWide(value) {
  wide = value;
}

/** The table mode of this run: the terminal's width (COLUMNS, else the terminal's, else 80), `--wide`, now. */
const tableMode = () => ({ width: terminalWidth(process.env, process.stdout), wide, now: Date.now() });

/**
 * Prints rows as a table (lib/table.mjs: fits the terminal, `--wide` keeps values whole, ISO
 * times shown relative) with a bold header (colour only when stdout is a terminal; NO_COLOR is honoured).
 * @param {string[]} head
 * @param {string[][]} rows
 */
export function printTable(head, rows) {
  const [header = '', ...body] = layoutTable(head, rows, tableMode());
  process.stdout.write(`${[stdoutColours.bold(header), ...body].join('\n')}\n`);
}

/**
 * An id as tables show it: its first 8 characters (enough to tell it apart, as a command that
 * takes it accepts), whole with `--wide`.
 * @param {string} id
 */
export const shortId = (id) => (wide ? id : id.slice(0, 8));

/**
 * A time as tables show it (relative; with `--wide` the exact UTC time too), for a line or a
 * cell that says more than the time.
 * @param {string} iso
 */
export const when = (iso) => formatTime(iso, tableMode());

/**
 * Prints an object's fields one a line, `words: value`, in words (lib/words.mjs) and never cut
 * (a secret shown once must be whole); times as tables show them.
 * @param {Record<string, unknown>} object
 * @param {string} [empty] what an empty list reads as
 */
export function printFields(object, empty) {
  const pairs = fieldsInWords(object, empty);
  const width = Math.max(0, ...pairs.map(([words]) => words.length)) + 1;
  for (const [words, value] of pairs)
    say(`${`${words}:`.padEnd(width)} ${isIsoTime(value) ? when(value) : value}`);
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
 * A paragraph for people on stdout, broken between words to fit the terminal (whole with `--wide`).
 * @param {string} text
 */
export function sayWrapped(text) {
  const mode = tableMode();
  say(mode.wide ? text : wrapWords(text, mode.width).join('\n'));
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
