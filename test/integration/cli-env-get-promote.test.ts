/**
 * `tether env get NAME` prints the one value the app is handed (derived included; exit 1 when
 * unset), and `tether promote <kind> <name>` hands a connection its family's plain names.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { createDatabase, effectiveVars, type SeededProject, seedProject } from '../helpers/connections';

let world: SeededProject;
const h = cliHomeForFile();

beforeAll(async () => {
  // One site: the database is connected to it at once and holds DATABASE_URL.
  world = await seedProject(inject('baseUrl'), 1, { databases: 1 });
  signInAs(h, world);
});

describe('tether env get and tether promote', () => {
  it('env get prints the value the app is handed, and exits 1 naming a variable the site lacks', async () => {
    const vars = await effectiveVars(world);
    const got = await runCli(h, ['env', 'get', 'DATABASE_URL', '--site', world.site.slug]);
    expect([got.code, got.stdout]).toEqual([0, `${vars.DATABASE_URL}\n`]);
    const missing = await runCli(h, ['env', 'get', 'NO_SUCH_NAME', '--site', world.site.slug]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NO_SUCH_NAME');
  });

  it('promote moves DATABASE_URL to the named database', async () => {
    const second = await createDatabase(world.as, world.project.id);
    const before = await effectiveVars(world);
    const res = await runCli(h, ['promote', 'database', second.name, '--site', world.site.slug]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('plain names');
    const after = await effectiveVars(world);
    expect(after.DATABASE_URL).not.toBe(before.DATABASE_URL);
    expect(after.DATABASE_URL).toBe(
      after[`DATABASE_URL_${second.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`],
    );
  });
});
