/**
 * The env-file writer of `tether env pull` against the dotenv package's own parser: what it
 * writes reads back exactly, and what it cannot write it refuses by name (fast-check).
 */
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
  writer = (await import('../../scripts/cli/lib/dotenv-writer.mjs' as string)) as Writer;
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
  });

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
