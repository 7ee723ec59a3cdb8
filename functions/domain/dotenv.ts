/**
 * A site's variables as a dotenv file that the `dotenv` package reads back to the same values:
 * each value bare when it holds only safe characters, else in the first quotes that keep it
 * (single quotes and backticks keep everything literally; double quotes turn only `\n` into a
 * line break). The CLI's writer (scripts/cli/lib/dotenv-writer.mjs) also makes the file safe to
 * source from a shell; this one serves the console's download.
 */
const PLAIN = /^[\w.:/@%+,=?&~-]*$/;

/** One value in a form dotenv reads back exactly (the rare value no quote can hold goes in backticks as is). */
export function dotenvValue(value: string): string {
  if (PLAIN.test(value)) return value;
  if (!value.includes("'") && !value.includes('\r') && !value.endsWith('\\')) return `'${value}'`;
  if (!value.includes('"') && !/\\[nr]/.test(value) && !value.endsWith('\\'))
    return `"${value.replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
  return `\`${value}\``;
}

/** `vars` as dotenv lines, names sorted, ending with a line break. */
export function toDotenv(vars: Record<string, string>): string {
  const names = Object.keys(vars).sort();
  return names.map((n) => `${n}=${dotenvValue(vars[n] ?? '')}`).join('\n') + (names.length ? '\n' : '');
}
