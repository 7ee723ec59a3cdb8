/**
 * `tether run`, `tether env pull --format` and `tether deliveries` against the local stack: the
 * child gets the site's effective variables (no file written) and tether exits with its code;
 * a signal reaches the child; JSON and shell formats hold the values exactly; the CLI says where
 * a change went instead of claiming it reached a running app.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiClient } from '../helpers/api';
import { cliHomeForFile, runCli, signInAs, spawnCli, waitForOutput } from '../helpers/cli';
import { seedProject } from '../helpers/connections';

let as: ApiClient;
let site: string;
const h = cliHomeForFile();
let db: string;
const TRICKY = 'it\'s $HOME `ls` "q"\nsecond line';

async function effective(): Promise<Record<string, string>> {
  return (await as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
}

beforeAll(async () => {
  const world = await seedProject(inject('baseUrl'), 1, { databases: 1 });
  as = world.as;
  site = `/api/v1/projects/${world.project.id}/sites/${world.site.id}`;
  db = world.databases[0]?.name as string;
  expect((await as.put(`${site}/env`, { vars: { TRICKY } })).status).toBe(200);
  signInAs(h, world);
});

describe('tether run', () => {
  it("prints the site's DATABASE_URL in the child and writes no file", async () => {
    const want = await effective();
    const res = await runCli(h, ['run', '--', 'node', '-e', 'console.log(process.env.DATABASE_URL)']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(want.DATABASE_URL);
    expect(await readdir(h.cwd)).toEqual([]);
  });

  it("returns the child's exit code, and hands values over exactly", async () => {
    const script = 'process.exit(process.env.TRICKY === process.argv[1] ? 7 : 1)';
    const res = await runCli(h, ['run', '--', 'node', '-e', script, TRICKY]);
    expect(res.code).toBe(7);
  });

  it('exits 127 with "command not found" for a command that cannot be found, as a shell does', async () => {
    const res = await runCli(h, ['run', '--', 'tether-no-such-command-here']);
    expect(res.code).toBe(127);
    expect(res.stderr).toContain('tether-no-such-command-here: command not found');
  });

  it('passes a signal on to the child', async () => {
    const child = spawnCli(h, [
      'run',
      '--',
      'node',
      '-e',
      "process.on('SIGTERM', () => { console.log('child got SIGTERM'); process.exit(42) }); console.log('ready'); setInterval(() => {}, 1000)",
    ]);
    await waitForOutput(child, /ready/);
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(42);
    expect(out).toContain('child got SIGTERM');
  });
});

describe('tether env pull --format', () => {
  it('json: the effective variables exactly', async () => {
    const res = await runCli(h, ['env', 'pull', '--format', 'json', '-']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual(await effective());
  });

  it('shell: export lines a POSIX shell reads back exactly, executing nothing', async () => {
    const res = await runCli(h, ['env', 'pull', '--format', 'shell', 'env.sh']);
    expect(res.code).toBe(0);
    expect(await readFile(join(h.cwd, 'env.sh'), 'utf8')).toMatch(/^# Written by tether env pull/);
    const printed = execFileSync('sh', ['-c', '. ./env.sh && printf %s "$TRICKY"'], {
      cwd: h.cwd,
      encoding: 'utf8',
    });
    expect(printed).toBe(TRICKY);
  });

  it('refuses a format it does not know', async () => {
    const res = await runCli(h, ['env', 'pull', '--format', 'yaml']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/--format: one of dotenv, json, shell/);
  });
});

describe('where a change went', () => {
  it('without a target or a platform-wide receiver, says the patch waits instead of claiming it arrived', async () => {
    const res = await runCli(h, ['rotate', 'database', db]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/no delivery target/);
    expect(res.stdout).not.toMatch(/running app receives/);
    // A graceful rotate that cannot reach the app keeps the old secret until its deadline, and says so.
    expect(res.stdout).toMatch(
      /old secret stays valid .*old secret retires in \d+ \w+ \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/,
    );
    const listed = await runCli(h, ['deliveries', '--json']);
    expect(listed.code).toBe(0);
    const body = JSON.parse(listed.stdout) as {
      target: unknown;
      deliveries: Array<{ reason: string; status: string }>;
    };
    expect(body.target).toEqual({ type: 'default', configured: false });
    expect(body.deliveries[0]).toMatchObject({ reason: 'rotate', status: 'pending' });
    expect(listed.stdout).not.toContain((await effective()).DATABASE_URL);
  });
});
