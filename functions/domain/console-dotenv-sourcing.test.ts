/**
 * The console's `Download .env` and `Copy all` text (functions/domain/dotenv.ts), sourced by bash
 * as people load it (`set -a; . ./web.env`). Regression (issue 38): the console double-quoted
 * `it's $(touch …)`, so sourcing the file a write member's value went into ran the command. Now
 * it is the CLI's writer: nothing runs, dotenv reads every value back exactly, and a shell reads
 * each value exactly or (for the few no shell quoting shares with dotenv) leaves it unset.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { toDotenv } from './dotenv';

/** Sources `text` with bash and reads back `names` (undefined when unset); whether `ran` was made. */
function sourceWithBash(text: string, names: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'tether-console-env-'));
  try {
    writeFileSync(join(dir, 'web.env'), text);
    const print = names.map(
      (n) => `if [ -n "\${${n}+set}" ]; then printf 'set%s\\0' "$${n}"; else printf 'unset\\0'; fi`,
    );
    const out = execFileSync('bash', ['-c', `set -a; . ./web.env; ${print.join('; ')}`], {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin', X: 'expanded' },
      encoding: 'utf8',
    });
    const parts = out.split('\0');
    const values = Object.fromEntries(
      names.map((n, i) => [n, parts[i]?.startsWith('set') ? parts[i]?.slice(3) : undefined]),
    );
    return { values, ran: existsSync(join(dir, 'ran')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the console's dotenv, sourced by bash", () => {
  const hostile: Record<string, string> = {
    GREETING: "it's $(touch ran)",
    SUBSTITUTION: '$(touch ran)',
    BACKTICKS: '`touch ran`',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} is the hostile value
    EXPANSION: '${X}',
    QUOTES: 'a\'b"`touch ran`',
    LINES: "it's\n$(touch ran)",
    SEMICOLON: 'a; touch ran',
    DATABASE_URL: 'postgres://u:p@h:5432/d?sslmode=require&x=1',
  };

  it("runs nothing a write member's value holds, and every value reads back exactly (dotenv) or literally (bash)", () => {
    const text = toDotenv(hostile);
    expect(parse(text)).toEqual(hostile);
    const read = sourceWithBash(text, Object.keys(hostile));
    expect(read.ran).toBe(false);
    for (const [name, value] of Object.entries(hostile))
      expect([value, undefined], name).toContain(read.values[name]);
    // Those a shell can hold literally, it holds: expansions stay as typed.
    expect(read.values.EXPANSION).toBe(hostile.EXPANSION);
    expect(read.values.BACKTICKS).toBe(hostile.BACKTICKS);
    expect(read.values.SUBSTITUTION).toBe(hostile.SUBSTITUTION);
    expect(read.values.DATABASE_URL).toBe(hostile.DATABASE_URL);
  });

  it('leaves loader variables out, saying so in a comment', () => {
    const text = toDotenv({ NODE_OPTIONS: '--require ./ran.cjs', DYLD_INSERT_LIBRARIES: 'x', A: '1' });
    expect(parse(text)).toEqual({ A: '1' });
    expect(text).toMatch(/# NODE_OPTIONS left out: a loader variable/);
    expect(text).toMatch(/# DYLD_INSERT_LIBRARIES left out/);
  });
});
