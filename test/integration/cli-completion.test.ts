/**
 * Shell completion offers what fits at the cursor: commands and options from the command tree,
 * the kinds a command takes, and the project's own service names and site slugs read from the
 * API. The bash script is run by bash itself, as a user's shell runs it.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI_ENTRY, type CliHome, cliHome, cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { type SeededProject, seedProject } from '../helpers/connections';

let world: SeededProject;
const h = cliHomeForFile();

beforeAll(async () => {
  world = await seedProject(inject('baseUrl'), 1, { databases: 2, buckets: 1, authApps: 1 });
  signInAs(h, world);
  // The shell's 3 s budget is for people; a loaded test machine may answer slower, and this
  // file checks what is offered, not how fast.
  h.env.TETHER_COMPLETION_TIMEOUT_MS = '60000';
});

/** The candidates `tether __complete` prints for the words after `tether` (the last one typed). */
async function complete(home: CliHome, ...words: string[]): Promise<string[]> {
  const res = await runCli(home, ['__complete', '--', ...words]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.split('\n').filter(Boolean);
}

describe('tether completion', () => {
  const names = (list: Array<{ name: string }>) => list.map((s) => s.name).sort();

  it('offers the kinds a command takes', async () => {
    expect(await complete(h, 'connect', '')).toEqual(['database', 'bucket', 'auth']);
    expect(await complete(h, 'principals', 'create', '')).toEqual(['database', 'bucket']);
    expect(await complete(h, 'disconnect', 'b')).toEqual(['bucket']);
  });

  it("offers the project's service names after a kind, and under db, bucket and auth", async () => {
    expect((await complete(h, 'connect', 'database', '')).sort()).toEqual(names(world.databases));
    expect(await complete(h, 'rotate', 'bucket', '')).toEqual(names(world.buckets));
    expect(await complete(h, 'connect', 'auth', '')).toEqual(names(world.authApps));
    expect((await complete(h, 'db', 'stop', '')).sort()).toEqual(names(world.databases));
    expect(await complete(h, 'bucket', 'delete', '')).toEqual(names(world.buckets));
    expect(await complete(h, 'auth', 'origins', '')).toEqual(names(world.authApps));
    const first = world.databases[0]?.name ?? '';
    expect(await complete(h, 'db', 'credentials', first)).toEqual([first]);
  });

  it('offers site slugs for --site and the levels of the kind for --level', async () => {
    expect(await complete(h, 'connect', 'database', 'x', '--site', '')).toEqual([world.site.slug]);
    expect(await complete(h, 'connect', 'bucket', 'x', '--level', '')).toEqual(['read', 'read-write']);
    // Engines are the deployment's (GET /api/v1/kinds), not a list of the tool's own.
    expect(await complete(h, 'db', 'create', 'x', '--engine', '')).toEqual(['postgresql', 'mongodb']);
  });

  it('offers nothing of the project for a new name, and commands and options from the tree', async () => {
    expect(await complete(h, 'db', 'create', '')).toEqual([]);
    expect(await complete(h, 'conn')).toEqual(['connections', 'connect']);
    expect(await complete(h, 'connect', 'database', 'x', '--le')).toEqual(['--level']);
  });

  it('offers only the static words when it cannot ask the API, and still exits 0', async () => {
    const away = await cliHome({ TETHER_API_URL: 'http://127.0.0.1:9', TETHER_PROJECT: 'none' });
    try {
      expect(await complete(away, 'connect', 'database', '')).toEqual([]);
      expect(await complete(away, 'connect', '')).toEqual(['database', 'bucket', 'auth']);
    } finally {
      await away.cleanup();
    }
  });

  it("bash's script completes a database name through the tool", async () => {
    const res = await runCli(h, ['completion', 'bash']);
    expect(res.code).toBe(0);
    const script = join(h.cwd, 'tether.bash');
    await writeFile(script, res.stdout);
    // `tether` on the PATH is the entry file itself; COMP_* are what bash sets on a TAB.
    const bin = join(h.cwd, 'bin');
    const run = spawnSync(
      'bash',
      [
        '-c',
        `mkdir -p ${bin} && ln -sf ${CLI_ENTRY} ${bin}/tether && export PATH=${bin}:$PATH && source ${script}
COMP_WORDS=(tether connect database ''); COMP_CWORD=3; _tether; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      {
        cwd: h.cwd,
        encoding: 'utf8',
        env: { ...process.env, XDG_CONFIG_HOME: h.configHome, HOME: h.configHome, ...h.env },
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split('\n').filter(Boolean).sort()).toEqual(names(world.databases));
  });
});
