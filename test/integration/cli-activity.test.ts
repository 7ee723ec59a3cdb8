/**
 * Changes made through the CLI are recorded `via: cli` (it names itself in X-Tether-Client), and
 * `tether activity` shows the project's record: a table, `--json`, `--site`, and `--follow`
 * printing a change made while it runs.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ActivityPage } from '../helpers/activity';
import { cliHomeForFile, runCli, signInAs, spawnCli, waitForOutput } from '../helpers/cli';
import { type SeededProject, seedProject } from '../helpers/connections';

let p: SeededProject;
const h = cliHomeForFile();

beforeAll(async () => {
  p = await seedProject(inject('baseUrl'), 1);
  signInAs(h, p);
});

describe('tether activity', () => {
  it('records a change made through the CLI once, via cli, and lists it', async () => {
    const set = await runCli(h, ['env', 'set', 'GREETING=hello-from-the-cli', '--site', p.site.slug]);
    expect(set.code, set.stderr).toBe(0);
    const created = await runCli(h, ['sites', 'create', 'docs']);
    expect(created.code, created.stderr).toBe(0);
    const json = await runCli(h, ['activity', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const page = JSON.parse(json.stdout) as ActivityPage;
    expect(page.events.map((e) => [e.action, e.via])).toEqual([
      ['site.create', 'cli'],
      ['env.set', 'cli'],
      ['site.create', 'api'],
      ['project.create', 'api'],
    ]);
    expect(page.events[1]?.details).toEqual({ names: ['GREETING'], via_declared: true });
    expect(json.stdout).not.toContain('hello-from-the-cli');
    const table = await runCli(h, ['activity', '--site', p.site.slug]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/env\.set/);
    expect(table.stdout).not.toMatch(/project\.create/);
  });

  it('--follow prints a change made while it runs', async () => {
    const child = spawnCli(h, ['activity', '--follow', '--interval', '0.2']);
    try {
      await waitForOutput(child, /env\.set/);
      // Listening before the change, so its line cannot go by unread.
      const printed = waitForOutput(child, /site\.create\s+later/);
      const made = await runCli(h, ['sites', 'create', 'later']);
      expect(made.code, made.stderr).toBe(0);
      expect(await printed).toMatch(/\bcli\b/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
