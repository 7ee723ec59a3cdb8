// @ts-check
/**
 * Writes variables in dotenv syntax that the `dotenv` package reads back to exactly the same
 * values, in a file that a POSIX shell may also source (`set -a; . ./.env`) without ever
 * executing anything from a value.
 *
 * For shells: a value goes on a line of its own only in a form a shell reads back exactly and
 * literally: bare from a safe set of characters, in single quotes (everything literal in both),
 * or in double quotes without `$`, backtick, backslash or `"`, under a name that is a shell
 * identifier. Every other entry (backticks would run commands, a quote dotenv cannot escape...)
 * goes into one block at the end of the file, inside `: <<'TETHER_DOTENV_ONLY'` ... a quoted
 * here-document that a shell skips unread, while dotenv reads its lines as usual. A shell thus
 * leaves those few variables unset, and the caller says which.
 *
 * For dotenv: dotenv's parser has no general escape: single quotes and backticks keep everything
 * literally (newlines included), double quotes turn only `\n` and `\r` into line breaks, an
 * unquoted value ends at `#` or a line break and is trimmed, and every carriage return in the
 * file becomes a line feed before parsing. So each value gets the first form that holds it,
 * and the whole file is parsed back with dotenv before anything is written.
 */
import { parse } from 'dotenv';

const QUOTES = /** @type {const} */ (["'", '"', '`']);
/** Names dotenv reads as keys. */
const KEY_RE = /^[\w.-]+$/;
/** Unquoted values that need no thought at all: URLs, ids, numbers, base64. */
const PLAIN_RE = /^[\w.:/@%+,=?&~-]+$/;
/** Names a shell assigns (any other `NAME=value` line would be run as a command). */
const SHELL_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Unquoted values a shell reads literally too (no `&`, `?`, `~`: background, glob, home). */
const SHELL_PLAIN_RE = /^[\w.:/@%+,=-]+$/;
/** The here-document that hides dotenv-only entries from shells. */
const DOTENV_ONLY = 'TETHER_DOTENV_ONLY';

/**
 * `value` in a form that dotenv and a shell both read back exactly, or undefined.
 * @param {string} value
 */
function shellAndDotenv(value) {
  if (SHELL_PLAIN_RE.test(value)) return value;
  if (value.includes('\r') || value.endsWith('\\')) return undefined;
  if (!value.includes("'")) return `'${value}'`;
  if (!/[$`\\"]/.test(value)) return `"${value}"`;
  return undefined;
}

/** Some values cannot be written so that dotenv reads them back exactly. */
export class UnrepresentableError extends Error {
  /** @param {string[]} names */
  constructor(names) {
    super(`dotenv syntax cannot hold the exact value of ${names.join(', ')}`);
    this.names = names;
  }
}

/**
 * `value` between quote `q`, when dotenv's parser returns it unchanged from that form.
 * @param {string} value
 * @param {(typeof QUOTES)[number]} q
 * @returns {string | undefined}
 */
function quoted(value, q) {
  // A backslash before the closing quote reads as an escaped quote (handled by the file tail).
  if (value.includes(q) || value.endsWith('\\')) return undefined;
  if (q !== '"') return value.includes('\r') ? undefined : `${q}${value}${q}`;
  // Inside double quotes dotenv turns the two characters \n and \r into line breaks.
  if (/\\[nr]/.test(value)) return undefined;
  return `"${value.replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
}

/**
 * A value dotenv reads back unquoted: one line, no `#`, nothing trimmed, not starting with a
 * quote (dotenv strips a matching pair) and no Unicode line separators (dotenv's quote
 * stripping treats them as line ends).
 * @param {string} value
 */
function bare(value) {
  if (value === '' || /[#\r\n\u2028\u2029]/.test(value) || value.trim() !== value) return undefined;
  if (QUOTES.some((q) => value.startsWith(q))) return undefined;
  return value;
}

/**
 * The form of one value in a line of its own, or undefined when it needs the file tail.
 * @param {string} value
 */
export function encodeValue(value) {
  if (PLAIN_RE.test(value)) return value;
  // Line breaks as \n inside double quotes keep the entry on one line, which more tools read.
  const order = /[\r\n]/.test(value) ? ['"', "'", '`'] : QUOTES;
  for (const q of /** @type {ReadonlyArray<(typeof QUOTES)[number]>} */ (order)) {
    const text = quoted(value, q);
    if (text !== undefined) return text;
  }
  return bare(value);
}

/**
 * Lines for values that end with a backslash and cannot go unquoted. Inside quotes a final
 * backslash reads as an escaped closing quote, and dotenv then looks for a later closing quote;
 * the value reads back exactly when no later text holds that quote character. So these lines
 * go last, each quoted with a character that nothing after it contains.
 * @param {Array<[string, string]>} entries
 * @returns {{ lines: string[], failed: string[] }}
 */
function tailLines(entries) {
  /** @type {string[]} */
  const lines = [];
  /** @type {string[]} */
  const failed = [];
  let after = '';
  const remaining = [...entries];
  while (remaining.length > 0) {
    // Place, from the bottom up, whichever entry can still be quoted; the others wait.
    const index = remaining.findIndex(([, value]) => pickTailQuote(value, after) !== undefined);
    if (index < 0) {
      failed.push(...remaining.map(([name]) => name));
      break;
    }
    const [name, value] = /** @type {[string, string]} */ (remaining.splice(index, 1)[0]);
    const q = /** @type {(typeof QUOTES)[number]} */ (pickTailQuote(value, after));
    const body = q === '"' ? value.replace(/\n/g, '\\n').replace(/\r/g, '\\r') : value;
    const line = `${name}=${q}${body}${q}`;
    lines.unshift(line);
    after = `${line}\n${after}`;
  }
  return { lines, failed };
}

/**
 * @param {string} value
 * @param {string} after the text that will follow the line
 */
function pickTailQuote(value, after) {
  return QUOTES.find((q) => {
    if (value.includes(q) || after.includes(q)) return false;
    if (q === '"') return !/\\[nr]/.test(value);
    return !value.includes('\r');
  });
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
  /** @type {string[]} */
  const lines = header.map((h) => `# ${h.replace(/[\r\n\u2028\u2029]/g, ' ')}`);
  /** @type {string[]} */
  const hidden = [];
  /** @type {string[]} */
  const dotenvOnly = [];
  /** @type {Array<[string, string]>} */
  const tail = [];
  /** @type {string[]} */
  const failed = [];
  for (const name of Object.keys(vars).sort()) {
    const value = /** @type {string} */ (vars[name]);
    if (!KEY_RE.test(name)) {
      failed.push(name);
      continue;
    }
    const both = SHELL_KEY_RE.test(name) ? shellAndDotenv(value) : undefined;
    if (both !== undefined) {
      lines.push(`${name}=${both}`);
      continue;
    }
    dotenvOnly.push(name);
    const text = encodeValue(value);
    if (text !== undefined) hidden.push(`${name}=${text}`);
    else if (value.endsWith('\\')) tail.push([name, value]);
    else failed.push(name);
  }
  const end = tailLines(tail);
  failed.push(...end.failed);
  const block = [...hidden, ...end.lines];
  // The block ends at a line that is exactly the delimiter: no value may hold such a line.
  const clash = dotenvOnly.filter((n) => (vars[n] ?? '').split(/\r\n|\r|\n/).includes(DOTENV_ONLY));
  failed.push(...clash);
  if (failed.length > 0) throw new UnrepresentableError(failed.sort());
  if (block.length > 0) {
    lines.push(
      '# Only dotenv reads the entries below; a shell sourcing this file skips them (their values',
      '# hold characters no shell quoting shares with dotenv, e.g. backticks).',
      `: <<'${DOTENV_ONLY}'`,
      ...block,
      DOTENV_ONLY,
    );
  }
  const text = `${lines.join('\n')}\n`;
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
