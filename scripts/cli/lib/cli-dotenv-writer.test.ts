/**
 * The env-file writer of `tether env pull` against the dotenv package's own parser: what it
 * writes reads back exactly, and what it cannot write it refuses by name (fast-check).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'dotenv';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

/** The module's surface (it is plain JavaScript with JSDoc types, loaded as the tool loads it). */
interface Writer {
  formatDotenv(vars: Record<string, string>, header?: string[]): string;
  UnrepresentableError: abstract new (...args: never[]) => Error & { names: string[] };
}

let writer: Writer;
beforeAll(async () => {
  writer = (await import('./dotenv-writer.mjs' as string)) as Writer;
});

/** Characters that break naive writers, plus ordinary ones. */
const hostileChar = fc.constantFrom(
  "'",
  '"',
  '`',
  '\\',
  '\n',
  '\r',
  '#',
  '$',
  ' ',
  '\t',
  '=',
  '\u2028',
  '\u00a0',
  'a',
  'n',
  'r',
  'Z',
  'é',
  '{',
);
const name = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/);
const value = fc.oneof(fc.string({ unit: hostileChar, maxLength: 16 }), fc.string({ maxLength: 16 }));

describe('formatDotenv', () => {
  it('either writes text dotenv parses back exactly, or refuses naming the variables', () => {
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 8 }), (vars) => {
        let text: string;
        try {
          text = writer.formatDotenv(vars, ['a header line']);
        } catch (err) {
          if (!(err instanceof writer.UnrepresentableError)) throw err;
          expect(err.names.length).toBeGreaterThan(0);
          for (const n of err.names) expect(Object.keys(vars)).toContain(n);
          return;
        }
        expect(parse(text)).toEqual(vars);
      }),
      { numRuns: 3000 },
    );
  }, 60_000);

  it('always succeeds without carriage returns when each value lacks a single quote or a backtick', () => {
    const holdable = value.filter((v) => !v.includes('\r') && (!v.includes("'") || !v.includes('`')));
    const oneTrailingBackslash = (vars: Record<string, string>) =>
      Object.values(vars).filter((v) => v.endsWith('\\')).length <= 1;
    fc.assert(
      fc.property(fc.dictionary(name, holdable, { maxKeys: 8 }).filter(oneTrailingBackslash), (vars) => {
        expect(parse(writer.formatDotenv(vars))).toEqual(vars);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['quotes of every kind on one line', 'a\'b"c`d'],
    ['a literal backslash-n', 'C:\\new'],
    ['a trailing backslash after a #', 'x # y\\'],
    ['carriage returns', 'a\r\nb'],
    ['only spaces', '   '],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} is the hostile value
    ['a dollar sign', '$HOME and ${X}'],
    ['a JSON document', '{"a": "b\\"c"}'],
  ])('keeps %s', (_what, v) => {
    expect(parse(writer.formatDotenv({ V: v, NEXT: 'after' }))).toEqual({ V: v, NEXT: 'after' });
  });

  it('refuses a value with every quote character and a line break', () => {
    expect(() => writer.formatDotenv({ OK: 'fine', BAD: 'a\'b"c`d\ne' })).toThrow(/BAD/);
  });

  it('keeps header comments out of the values', () => {
    const text = writer.formatDotenv({ A: '1' }, ['line\nX=injected']);
    expect(parse(text)).toEqual({ A: '1' });
  });
});

interface FormatEnvFile {
  formatEnvFile(vars: Record<string, string>, header?: string[]): { text: string; dotenvOnly: string[] };
}

/**
 * Sources `text` in a POSIX shell (`set -a; . ./.env`) and returns what it assigned to `names`
 * (undefined when unset), and whether anything ran: every hostile value tries `touch ran`.
 */
function sourceInShell(
  text: string,
  names: string[],
): { values: Record<string, string | undefined>; ran: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'tether-env-sh-'));
  try {
    writeFileSync(join(dir, '.env'), text);
    const print = names.map(
      (n) => `if [ -n "\${${n}+set}" ]; then printf 'set%s\\0' "$${n}"; else printf 'unset\\0'; fi`,
    );
    const out = execFileSync('sh', ['-c', `set -a; . ./.env; ${print.join('; ')}`], {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
    });
    const parts = out.split('\0');
    const values = Object.fromEntries(
      names.map((n, i) => {
        const part = parts[i] ?? 'unset';
        return [n, part.startsWith('set') ? part.slice(3) : undefined];
      }),
    );
    return { values, ran: existsSync(join(dir, 'ran')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('formatEnvFile: a file POSIX shells may source', () => {
  let envFile: FormatEnvFile;
  beforeAll(async () => {
    envFile = (await import('./dotenv-writer.mjs' as string)) as FormatEnvFile;
  });

  it('a sourcing shell reads exactly what dotenv reads, except the entries it is told are dotenv-only, which it leaves unset', () => {
    fc.assert(
      fc.property(fc.dictionary(name, value, { minKeys: 1, maxKeys: 4 }), (vars) => {
        let out: { text: string; dotenvOnly: string[] };
        try {
          out = envFile.formatEnvFile(vars, ['a header line']);
        } catch (err) {
          if (!(err instanceof writer.UnrepresentableError)) throw err;
          return;
        }
        expect(parse(out.text)).toEqual(vars);
        const expected = Object.fromEntries(
          Object.entries(vars).map(([n, v]) => [n, out.dotenvOnly.includes(n) ? undefined : v]),
        );
        expect(sourceInShell(out.text, Object.keys(vars)).values).toEqual(expected);
      }),
      // Each run starts a shell: few runs, and room for a busy machine.
      { numRuns: 60 },
    );
  }, 120_000);

  it.each([
    ['a command substitution', 'x$(touch ran)y'],
    ['backticks', '`touch ran`'],
    ['backticks with every quote', 'a\'b"`touch ran`'],
    ['a command after a semicolon', 'a; touch ran'],
    ['a background job', 'a & touch ran'],
    ['a single quote and a substitution', "it's $(touch ran)"],
    ['a single quote, a substitution and a line break', "it's\n$(touch ran)"],
    ['a trailing backslash and a substitution', "'$(touch ran) \\"],
    ['a carriage return and a substitution', 'a\r$(touch ran)'],
  ])('never executes %s when sourced, and dotenv still reads it exactly', (_what, v) => {
    const vars = { V: v, PLAIN: 'postgres://u:p@h:5432/d?sslmode=require&x=1', HOME_LIKE: '~/x' };
    const { text } = envFile.formatEnvFile(vars);
    expect(parse(text)).toEqual(vars);
    const read = sourceInShell(text, Object.keys(vars));
    expect(read.ran).toBe(false);
    expect(read.values.PLAIN).toBe(vars.PLAIN);
    expect(read.values.HOME_LIKE).toBe('~/x');
    expect([v, undefined]).toContain(read.values.V);
  });

  it('names only the values no shell quoting shares with dotenv as dotenv-only', () => {
    const { dotenvOnly } = envFile.formatEnvFile({
      URL: 'postgres://u:p@h/d',
      SPACES: 'a b',
      APOSTROPHE: "it's",
      DOLLAR: '$HOME',
      BOTH: "it's $HOME",
      DOTTED_NAME_OK: 'x',
    });
    expect(dotenvOnly).toEqual(['BOTH']);
  });
});
