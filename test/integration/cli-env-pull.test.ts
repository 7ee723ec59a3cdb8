/**
 * `tether env pull` against the local stack: hostile user values and derived variables come
 * back exactly through the dotenv package, the file is 0600, and git-ignore is checked.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiClient } from '../helpers/api';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { seedProject } from '../helpers/connections';

/** User-set values built to break naive env writers. */
const HOSTILE: Record<string, string> = {
  SINGLE_QUOTE: "it's",
  DOUBLE_QUOTE: 'say "hi"',
  BACKTICK: 'run `ls`',
  ALL_QUOTES_ONE_LINE: 'a\'b"c`d',
  STARTS_WITH_QUOTE: "'not closed",
  QUOTED_LOOKING: '"looks quoted"',
  NEWLINES: 'line one\nline two\n',
  CRLF: 'windows\r\nline',
  HASH: 'value # not a comment',
  HASH_FIRST: '#hashtag',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${...} is the hostile value
  DOLLARS: '$HOME ${PATH} $(whoami) \\$ESCAPED',
  SPACES: '  padded both sides  ',
  TAB: '\tindented',
  EMPTY: '',
  BACKSLASHES: 'C:\\new\\table\\raw\\n',
  TRAILING_BACKSLASH: 'ends with a backslash \\',
  TRAILING_BACKSLASH_HASH: 'a # and a backslash\\',
  EQUALS: '=a=b==',
  JSON_VALUE: '{"a": 1, "b": [true, null], "c": "x\\"y"}',
  URL_WITH_PASSWORD: 'postgres://u:p%40ss@host:5432/db?sslmode=require&x=1',
  UNICODE: 'héllo wörld ✓ 日本 \u2028 separator',
  MULTILINE_MIXED: 'first \'line\'\nsecond "line"\n# third',
  EXPORT_LOOKING: 'export X=1',
};

let as: ApiClient;
let projectId: string;
let siteId: string;
const h = cliHomeForFile();

async function effective(): Promise<Record<string, string>> {
  const res = await as.get<{ vars: Record<string, string> }>(
    `/api/v1/projects/${projectId}/sites/${siteId}/env/effective`,
  );
  expect(res.status).toBe(200);
  return res.body.vars;
}

beforeAll(async () => {
  // One site: the new database is connected to it, so derived variables join the user's.
  const world = await seedProject(inject('baseUrl'), 1, { databases: 1 });
  as = world.as;
  projectId = world.project.id;
  siteId = world.site.id;
  const put = await as.put(`/api/v1/projects/${projectId}/sites/${siteId}/env`, { vars: HOSTILE });
  expect(put.status).toBe(200);
  signInAs(h, world);
});

describe('tether env pull', () => {
  it('writes .env that the dotenv package parses back to exactly the effective variables', async () => {
    const res = await runCli(h, ['env', 'pull']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Wrote \d+ variables/);
    const parsed = parse(await readFile(join(h.cwd, '.env'), 'utf8'));
    const vars = await effective();
    expect(parsed).toEqual(vars);
    for (const [name, value] of Object.entries(HOSTILE)) expect(parsed[name]).toBe(value);
    expect(parsed.DATABASE_URL).toMatch(/^postgres:\/\//);
  });

  it('the file is readable only by the user, even when it existed with wider permissions', async () => {
    const file = join(h.cwd, 'wide.env');
    await writeFile(file, 'OLD=1\n', { mode: 0o644 });
    // A file tether did not write is replaced only with --yes.
    const res = await runCli(h, ['env', 'pull', 'wide.env', '--yes']);
    expect(res.code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(parse(await readFile(file, 'utf8')).OLD).toBeUndefined();
  });

  it('warns when git would commit the file, and not once it is ignored', async () => {
    execFileSync('git', ['init', '-q'], { cwd: h.cwd, stdio: 'ignore' });
    const exposed = await runCli(h, ['env', 'pull', '.env']);
    expect(exposed.code).toBe(0);
    expect(exposed.stderr).toMatch(/warning: \.env holds secrets and is not ignored by git/);
    await writeFile(join(h.cwd, '.gitignore'), '.env\n');
    const ignored = await runCli(h, ['env', 'pull', '.env']);
    expect(ignored.code).toBe(0);
    expect(ignored.stderr).toBe('');
  });

  it('a value dotenv syntax cannot hold is exit 1 naming it, and nothing is written', async () => {
    // All three quote characters and a line break: dotenv has no quoting that keeps it.
    const put = await as.put(`/api/v1/projects/${projectId}/sites/${siteId}/env`, {
      vars: { ...HOSTILE, IMPOSSIBLE: 'a\'b"c`d\ne' },
    });
    expect(put.status).toBe(200);
    try {
      const res = await runCli(h, ['env', 'pull', 'never.env']);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('IMPOSSIBLE');
      await expect(stat(join(h.cwd, 'never.env'))).rejects.toThrow(/ENOENT/);
    } finally {
      await as.put(`/api/v1/projects/${projectId}/sites/${siteId}/env`, { vars: HOSTILE });
    }
  });

  it('a folder in the way is exit 1 with one plain line naming it, and leaves no temporary file', async () => {
    await mkdir(join(h.cwd, 'adir'));
    const res = await runCli(h, ['env', 'pull', 'adir']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: cannot write \S*adir: it is a folder\n$/);
    expect((await readdir(h.cwd)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a file that cannot be created is exit 1 with one plain line naming it', async () => {
    const res = await runCli(h, ['env', 'pull', '/proc/x.env']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: cannot write \/proc\/x\.env: [^\n]+\n$/);
  });

  it('an unknown site is exit 1', async () => {
    const res = await runCli(h, ['env', 'pull', '--site', 'nope']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no site "nope"');
  });
});
