// @ts-check
/**
 * The one writer of dotenv files that every place writing one uses (docs/contract.md §9,
 * Variables handed to a shell): the console's `Download .env` and `Copy all`, and `tether env
 * pull` (scripts/cli/lib/dotenv-writer.mjs, which also parses the text back with the dotenv
 * package). Plain JavaScript with no dependency, so both the Worker and the CLI (Node, no build
 * step) import it; its types are in shell-safe-env.d.mts.
 *
 * For shells: a value goes on a line of its own only in a form a POSIX shell reads back exactly
 * and literally: bare from a safe set of characters, in single quotes (everything literal in
 * both), or in double quotes without `$`, backtick, backslash or `"`, under a name that is a
 * shell identifier. Every other entry (backticks would run commands, a quote dotenv cannot
 * escape...) goes into one block at the end of the file, inside `: <<'TETHER_DOTENV_ONLY'` ... a
 * quoted here-document that a shell skips unread, while dotenv reads its lines as usual. A shell
 * thus leaves those few variables unset, and the caller says which. Nothing a value holds
 * (`$(…)`, backticks, `${…}`) is ever run or expanded when the file is sourced.
 *
 * For dotenv: dotenv's parser has no general escape: single quotes and backticks keep everything
 * literally (newlines included), double quotes turn only `\n` and `\r` into line breaks, an
 * unquoted value ends at `#` or a line break and is trimmed, and every carriage return in the
 * file becomes a line feed before parsing. So each value gets the first form that holds it.
 */

/**
 * Variables that make a program load or run code of the variable's choosing when it starts
 * (docs/contract.md §9): never stored as site variables, and skipped by `tether run` and
 * `tether env pull` unless `--allow-loader-vars`.
 */
export const LOADER_VARIABLES = /** @type {const} */ ([
  'NODE_OPTIONS',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'DYLD_*',
  'BASH_ENV',
  'ENV',
  'PYTHONSTARTUP',
  'PERL5OPT',
  'RUBYOPT',
  'PATH',
]);

/**
 * Whether `name` is a loader variable ({@link LOADER_VARIABLES}; `DYLD_*` is every name so starting).
 * @param {string} name
 */
export function isLoaderVariable(name) {
  return LOADER_VARIABLES.some((n) => (n.endsWith('*') ? name.startsWith(n.slice(0, -1)) : name === n));
}

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
export const DOTENV_ONLY = 'TETHER_DOTENV_ONLY';

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
 * The form of one value in a line of its own for dotenv, or undefined when it needs the file tail.
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
 * The file text for `vars`, starting with `header` comment lines: the names a shell sourcing it
 * leaves unset (written for dotenv only) and the names no dotenv syntax can hold exactly, which
 * are left out of the text (`failed`: the caller refuses or says so).
 * @param {Record<string, string>} vars
 * @param {string[]} [header]
 * @returns {{ text: string, dotenvOnly: string[], failed: string[] }}
 */
export function shellSafeDotenv(vars, header = []) {
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
    // The block ends at a line that is exactly the delimiter: no value may hold such a line.
    if (value.split(/\r\n|\r|\n/).includes(DOTENV_ONLY)) {
      failed.push(name);
      continue;
    }
    const text = encodeValue(value);
    if (text !== undefined) hidden.push(`${name}=${text}`);
    else if (value.endsWith('\\')) tail.push([name, value]);
    else {
      failed.push(name);
      continue;
    }
    dotenvOnly.push(name);
  }
  const end = tailLines(tail);
  failed.push(...end.failed);
  const block = [...hidden, ...end.lines];
  if (block.length > 0) {
    lines.push(
      '# Only dotenv reads the entries below; a shell sourcing this file skips them (their values',
      '# hold characters no shell quoting shares with dotenv, e.g. backticks).',
      `: <<'${DOTENV_ONLY}'`,
      ...block,
      DOTENV_ONLY,
    );
  }
  const gone = new Set(end.failed);
  return {
    text: `${lines.join('\n')}\n`,
    dotenvOnly: dotenvOnly.filter((n) => !gone.has(n)),
    failed: failed.sort(),
  };
}
