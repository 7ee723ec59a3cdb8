/**
 * The Variables form's text: one `NAME=value` a line, as typed, and back. A value that holds a
 * line break (a PEM key) or starts with a double quote is written in double quotes, its line
 * breaks kept as lines and only `\` and `"` escaped (a carriage return as `\r`), so saving the
 * form unchanged keeps every value exactly; a value typed in double quotes may span lines the same way.
 */

type Vars = Record<string, string>;

/** Whether a value needs the quoted form to read back the same. */
const needsQuotes = (value: string): boolean => /[\r\n]/.test(value) || value.startsWith('"');

/** `vars` as the form's lines. */
export function toLines(vars: Vars): string {
  return Object.entries(vars)
    .map(([name, value]) =>
      needsQuotes(value)
        ? `${name}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r/g, '\\r')}"`
        : `${name}=${value}`,
    )
    .join('\n');
}

const ESCAPED: Record<string, string> = { '\\': '\\', '"': '"', n: '\n', r: '\r' };

/** Where the first unescaped `"` of `text` is, or -1. */
function closingQuote(text: string): number {
  for (let k = 0; k < text.length; k++) {
    if (text[k] === '\\') k++;
    else if (text[k] === '"') return k;
  }
  return -1;
}

/**
 * A double-quoted value whose text after the opening quote starts with `first` (on line `at`),
 * read on over the next lines until its closing quote ends a line: its value and last line, or
 * null when it closes nowhere or text follows the quote (then the line is taken as typed).
 */
function quotedValue(first: string, lines: string[], at: number): { value: string; last: number } | null {
  let raw = first;
  for (let j = at; j < lines.length; j++) {
    if (j > at) raw += `\n${lines[j]}`;
    const close = closingQuote(raw);
    if (close < 0) continue;
    if (raw.slice(close + 1).trim() !== '') return null;
    return { value: raw.slice(0, close).replace(/\\(["\\nr])/g, (_, c: string) => ESCAPED[c] ?? c), last: j };
  }
  return null;
}

/** The form's lines as a map; blank lines and `#` comments are skipped, the value is the rest of the line. */
export function parseLines(text: string): Vars {
  const vars: Vars = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const at = line.indexOf('=');
    const name = (at < 0 ? line : line.slice(0, at)).trim();
    const rest = at < 0 ? '' : line.slice(at + 1);
    const quoted = rest.startsWith('"') ? quotedValue(rest.slice(1), lines, i) : null;
    vars[name] = quoted ? quoted.value : rest;
    if (quoted) i = quoted.last;
  }
  return vars;
}
