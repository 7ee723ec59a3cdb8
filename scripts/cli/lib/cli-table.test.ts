/**
 * The CLI's one table layout (scripts/cli/lib/table.mjs) and its field words
 * (scripts/cli/lib/words.mjs): a table fits the width it is given by cutting its widest column
 * with an ellipsis, `wide` keeps every value whole, no rule between rows, times are relative
 * (and exact when wide), and an API field reads as words.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

interface TableMode {
  width: number;
  wide: boolean;
  now: number;
}
interface TableModule {
  layoutTable(head: string[], rows: string[][], mode: TableMode): string[];
  terminalWidth(
    env: Record<string, string | undefined>,
    stdout: { isTTY?: boolean; columns?: number },
  ): number;
  relativeTime(iso: string, now: number): string;
  formatTime(iso: string, mode: { wide: boolean; now: number }): string;
  wrapWords(text: string, width: number): string[];
}
interface WordsModule {
  fieldsInWords(object: Record<string, unknown>, empty?: string): [string, string][];
}

let table: TableModule;
let words: WordsModule;
beforeAll(async () => {
  table = (await import('./table.mjs' as string)) as TableModule;
  words = (await import('./words.mjs' as string)) as WordsModule;
});

const NOW = Date.parse('2026-12-07T05:00:00Z');
const narrow = (width: number): TableMode => ({ width, wide: false, now: NOW });
const length = (line: string) => [...line].length;

/** A delivery listing as wide as the one `tether deliveries` prints (about 330 columns before). */
const DELIVERY_HEAD = ['WHEN', 'REASON', 'SEQ', 'STATUS', 'ATTEMPTS', 'NAMES', 'LAST ERROR'];
const DELIVERY_ROWS = [
  [
    '2026-12-07T04:57:12.345Z',
    'connect',
    '12',
    'failed',
    '3',
    Array.from({ length: 12 }, (_, i) => `STORAGE_FILES_VARIABLE_${i}`).join(', '),
    'fetch failed: connect ECONNREFUSED 127.0.0.1:9 while sending the patch to the webhook target',
  ],
  ['2026-12-07T03:00:00Z', 'variables', '11', 'live', '1', 'GREETING', ''],
];

describe('layoutTable', () => {
  it('fits 80 columns by cutting the widest values with an ellipsis, headers whole', () => {
    const lines = table.layoutTable(DELIVERY_HEAD, DELIVERY_ROWS, narrow(80));
    for (const line of lines) expect(length(line), line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^WHEN\s+REASON\s+SEQ\s+STATUS\s+ATTEMPTS\s+NAMES\s+LAST ERROR$/);
    expect(lines[1]).toContain('…');
    expect(lines[1]).toMatch(/^3 min ago\s+connect\s+12\s+failed\s+3\s+STORAGE_FILES_V…\s+fetch failed/);
    // One line a row: no rule between rows, nothing but the rows.
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).not.toMatch(/[─│┼-]{3}/);
  });

  it('with wide keeps every value whole and shows the exact UTC time beside the relative one', () => {
    const lines = table.layoutTable(DELIVERY_HEAD, DELIVERY_ROWS, { ...narrow(80), wide: true });
    const text = lines.join('\n');
    for (const value of (DELIVERY_ROWS[0] as string[]).slice(1)) expect(text).toContain(value);
    expect(text).toContain('3 min ago (2026-12-07T04:57:12Z)');
    expect(text).not.toContain('…');
    expect(Math.max(...lines.map(length))).toBeGreaterThan(80);
  });

  it('cuts only the widest column when that is enough, and leaves the others whole', () => {
    const lines = table.layoutTable(['NAME', 'NOTE'], [['main', 'x'.repeat(100)]], narrow(40));
    expect(lines[1]).toBe(`main  ${'x'.repeat(33)}…`);
    expect(length(lines[1] as string)).toBe(40);
  });

  it('a cell of several lines continues under its own column', () => {
    const lines = table.layoutTable(
      ['KIND', 'NAME', 'ENV'],
      [
        ['database', 'main', 'DATABASE_URL\nDATABASE_URL_MAIN'],
        ['bucket', 'files', 'STORAGE_BUCKET'],
      ],
      narrow(80),
    );
    expect(lines).toEqual([
      'KIND      NAME   ENV',
      'database  main   DATABASE_URL',
      '                 DATABASE_URL_MAIN',
      'bucket    files  STORAGE_BUCKET',
    ]);
  });

  it('never passes the width it is given, whatever the values (property)', () => {
    const cell = fc.stringMatching(/^[!-~]{0,60}$/);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }).chain((n) =>
          fc.record({
            head: fc.array(fc.stringMatching(/^[A-Z]{1,10}$/), { minLength: n, maxLength: n }),
            rows: fc.array(fc.array(cell, { minLength: n, maxLength: n }), { maxLength: 6 }),
            width: fc.integer({ min: 3 * n, max: 200 }),
          }),
        ),
        ({ head, rows, width }) => {
          const lines = table.layoutTable(head, rows, narrow(width));
          expect(lines).toHaveLength(rows.length + 1);
          for (const line of lines) expect(length(line)).toBeLessThanOrEqual(width);
          const whole = table.layoutTable(head, rows, { ...narrow(width), wide: true }).join('\n');
          for (const value of rows.flat()) expect(whole).toContain(value);
        },
      ),
    );
  });
});

describe('terminalWidth', () => {
  it('takes COLUMNS, else the terminal width, else 80 when stdout is no terminal', () => {
    expect(table.terminalWidth({ COLUMNS: '100' }, { isTTY: true, columns: 120 })).toBe(100);
    expect(table.terminalWidth({}, { isTTY: true, columns: 120 })).toBe(120);
    expect(table.terminalWidth({}, {})).toBe(80);
    expect(table.terminalWidth({ COLUMNS: 'wide' }, {})).toBe(80);
  });
});

describe('times', () => {
  it('read relative, in one format, future ones too', () => {
    const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();
    expect(table.relativeTime(at(-10), NOW)).toBe('just now');
    expect(table.relativeTime(at(-180), NOW)).toBe('3 min ago');
    expect(table.relativeTime(at(-5 * 3600), NOW)).toBe('5 h ago');
    expect(table.relativeTime(at(-3 * 86400), NOW)).toBe('3 days ago');
    expect(table.relativeTime(at(89 * 86400), NOW)).toBe('in 3 months');
    expect(table.relativeTime(at(30 * 86400), NOW)).toBe('in 30 days');
    expect(table.formatTime(at(-180), { wide: true, now: NOW })).toBe('3 min ago (2026-12-07T04:57:00Z)');
  });
});

describe('wrapWords', () => {
  it('breaks a sentence between words to the width', () => {
    const text =
      'Site web has no delivery target and there is no platform-wide receiver: live patches wait as pending.';
    const lines = table.wrapWords(text, 40);
    for (const line of lines) expect(length(line)).toBeLessThanOrEqual(40);
    expect(lines.join(' ')).toBe(text);
  });
});

describe('fieldsInWords', () => {
  it('turns API keys and flags into words', () => {
    expect(
      words.fieldsInWords({
        client_id: 'web-1',
        client_secret_set: true,
        native_client_ids: { ios: 'ios-1' },
        allowed_sources: [],
        access_key_id: 'AKIA1',
        expired: false,
        expires_at: null,
      }),
    ).toEqual([
      ['client ID', 'web-1'],
      ['client secret', 'set'],
      ['native client IDs', 'ios ios-1'],
      ['allowed sources', 'none'],
      ['access key ID', 'AKIA1'],
      ['expired', 'no'],
    ]);
  });
});
