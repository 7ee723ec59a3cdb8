// @ts-check
/**
 * The one table layout of every list command: a header line, then one line per row (a cell
 * of several lines, such as a list of variable names, continues under its own column), columns
 * two spaces apart, no rules. By default the table fits the terminal: while it is wider, its
 * widest column is narrowed and values cut with an ellipsis (headers are cut last). `wide` (the
 * `--wide` option) keeps every value whole; `--json` gives the API's answer. A cell that is an
 * ISO 8601 time is shown the one way times are shown: relative ("3 min ago"), with the exact
 * UTC time beside it when wide. Pure: the caller gives the width, the mode and the clock.
 */

/** Spaces between columns. */
const GAP = 2;
/** What a cut value ends with. */
const ELLIPSIS = '…';
/** The terminal width assumed when none is known (output to a file or a pipe). */
export const DEFAULT_WIDTH = 80;

/**
 * @typedef {{ width: number, wide: boolean, now: number }} TableMode
 *   width: columns available; wide: values whole and exact times; now: the clock relative times count from
 */

/**
 * The width tables fit: COLUMNS when set to a positive number, else the terminal's, else 80.
 * @param {NodeJS.ProcessEnv} env
 * @param {{ isTTY?: boolean, columns?: number }} stdout
 */
export function terminalWidth(env, stdout) {
  const fromEnv = Number(env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  if (stdout.isTTY && typeof stdout.columns === 'number' && stdout.columns > 0) return stdout.columns;
  return DEFAULT_WIDTH;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Whether `text` is an ISO 8601 date-time (as the API writes them).
 * @param {string} text
 */
export const isIsoTime = (text) => ISO_TIME.test(text) && !Number.isNaN(Date.parse(text));

/** @type {[number, string, string][]} seconds per unit, its short name, its plural */
const UNITS = [
  [365 * 86400, 'year', 'years'],
  [30 * 86400, 'month', 'months'],
  [86400, 'day', 'days'],
  [3600, 'h', 'h'],
  [60, 'min', 'min'],
];

/**
 * `just now`, `3 min ago`, `5 h ago`, `2 days ago`, `in 89 days`: `iso` against `now`. Each
 * unit is used until two of the next would read better (48 h, then days up to 60, …).
 * @param {string} iso
 * @param {number} now
 */
export function relativeTime(iso, now) {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const size = Math.abs(seconds);
  if (size < 45) return 'just now';
  const found = UNITS.find(([unit], i) => size >= unit * (i === UNITS.length - 1 ? 1 : 2)) ?? UNITS[4];
  const [unit, one, many] = /** @type {[number, string, string]} */ (found);
  const n = Math.max(1, Math.round(size / unit));
  const words = `${n} ${n === 1 ? one : many}`;
  return seconds < 0 ? `${words} ago` : `in ${words}`;
}

/**
 * A time as every table and line shows it: relative, and with `wide` the exact UTC time too
 * (`3 min ago (2026-12-07T04:30:12Z)`).
 * @param {string} iso
 * @param {Pick<TableMode, 'wide' | 'now'>} mode
 */
export function formatTime(iso, mode) {
  const relative = relativeTime(iso, mode.now);
  if (!mode.wide) return relative;
  return `${relative} (${new Date(iso).toISOString().replace(/\.\d+Z$/, 'Z')})`;
}

/** @param {string} text */
const widthOf = (text) => [...text].length;

/**
 * `text` in exactly `width` columns: padded, or cut with an ellipsis.
 * @param {string} text
 * @param {number} width
 */
function padOrCut(text, width) {
  const chars = [...text];
  if (chars.length <= width) return text + ' '.repeat(width - chars.length);
  return width <= 0 ? '' : chars.slice(0, width - 1).join('') + ELLIPSIS;
}

/**
 * Narrows the widest column above its floor, again and again, until the columns and gaps fit
 * `width` or every column is at its floor.
 * @param {number[]} widths changed in place
 * @param {number[]} floors
 * @param {number} width
 */
function narrow(widths, floors, width) {
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      const w = /** @type {number} */ (widths[i]);
      if (w > /** @type {number} */ (floors[i]) && (widest < 0 || w > /** @type {number} */ (widths[widest])))
        widest = i;
    }
    if (widest < 0) return;
    const current = /** @type {number} */ (widths[widest]);
    const next = Math.max(0, ...widths.filter((_, i) => i !== widest));
    // Down to the next widest column (or less, if that is enough), by at least one.
    const target = Math.max(current - (total() - width), next);
    widths[widest] = Math.max(/** @type {number} */ (floors[widest]), Math.min(current - 1, target));
  }
}

/**
 * The table's lines (no colour, no trailing spaces): `head`, then `rows`.
 * @param {string[]} head
 * @param {string[][]} rows cells; a cell with line breaks takes several lines
 * @param {TableMode} mode
 * @returns {string[]}
 */
export function layoutTable(head, rows, mode) {
  const cells = rows.map((row) =>
    head.map((_, i) => {
      const value = row[i] ?? '';
      return (isIsoTime(value) ? formatTime(value, mode) : value).split('\n');
    }),
  );
  const widths = head.map((h, i) =>
    Math.max(widthOf(h), ...cells.map((row) => Math.max(...(row[i] ?? ['']).map(widthOf)))),
  );
  if (!mode.wide) {
    // Values first (headers kept whole), then headers too.
    narrow(
      widths,
      head.map((h) => widthOf(h)),
      mode.width,
    );
    narrow(
      widths,
      head.map(() => 1),
      mode.width,
    );
  }
  /** @param {string[]} parts */
  const line = (parts) =>
    parts
      .map((part, i) => padOrCut(part, /** @type {number} */ (widths[i])))
      .join(' '.repeat(GAP))
      .trimEnd();
  const lines = [line(head)];
  for (const row of cells) {
    const height = Math.max(...row.map((c) => c.length));
    for (let k = 0; k < height; k++) lines.push(line(row.map((c) => c[k] ?? '')));
  }
  return lines;
}

/**
 * `text` broken between words into lines of at most `width` columns (a longer word stands alone).
 * @param {string} text
 * @param {number} width
 * @returns {string[]}
 */
export function wrapWords(text, width) {
  /** @type {string[]} */
  const lines = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current === '') current = word;
    else if (widthOf(current) + 1 + widthOf(word) <= width) current += ` ${word}`;
    else {
      lines.push(current);
      current = word;
    }
  }
  if (current !== '') lines.push(current);
  return lines;
}
