/**
 * `tether env pull` during a graceful rotation (docs/contract.md §14): the file holds the new
 * secret, and stderr says which connection is rotating and by when the secret pulled before the
 * rotate stops working; once the rotation is done nothing is said. `tether rotate --grace` sets
 * that deadline.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { type SeededProject, type Service, seedProject } from '../helpers/connections';

const h = cliHomeForFile();
let world: SeededProject;
let path: string;

beforeAll(async () => {
  world = await seedProject(inject('baseUrl'), 1, { databases: 1, buckets: 1 });
  signInAs(h, world);
  const db = world.databases[0] as Service;
  path = `/api/v1/projects/${world.project.id}/sites/${world.site.id}/connections/database/${db.id}`;
});

describe('tether env pull while a rotation drains', () => {
  it('warns on stderr with the deadline of the secret pulled before, and is quiet once done', async () => {
    const quiet = await runCli(h, ['env', 'pull', 'before.env', '--yes']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('rotating');
    expect((await world.as.post(`${path}/rotate`)).status).toBe(204);
    const r = await world.as.get<{ state: string; retires_by: string }>(`${path}/rotation`);
    expect(r.body.state).toBe('delivering');

    const res = await runCli(h, ['env', 'pull', 'after.env', '--yes']);
    expect(res.code, res.stderr).toBe(0);
    const name = (world.databases[0] as Service).name;
    expect(res.stderr).toContain(`warning: database ${name} is rotating (delivering)`);
    expect(res.stderr).toMatch(/stops working in \d+ \w+ \(/);
    expect(res.stderr).toContain(`(${new Date(r.body.retires_by).toISOString().replace(/\.\d+Z$/, 'Z')})`);
    // Only the rotating connection is named; the file holds the new secret.
    expect(res.stderr).not.toContain('bucket');
    const pulled = parse(await readFile(join(h.cwd, 'after.env'), 'utf8'));
    const before = parse(await readFile(join(h.cwd, 'before.env'), 'utf8'));
    const effective = await world.as.get<{ vars: Record<string, string> }>(
      `/api/v1/projects/${world.project.id}/sites/${world.site.id}/env/effective`,
    );
    expect(pulled.DATABASE_URL).toBe(effective.body.vars.DATABASE_URL);
    expect(pulled.DATABASE_URL).not.toBe(before.DATABASE_URL);

    // To standard output too: the warning stays on stderr.
    const piped = await runCli(h, ['env', 'pull', '-']);
    expect(piped.stdout).not.toContain('rotating');
    expect(piped.stderr).toContain(`database ${name} is rotating`);

    expect((await world.as.post(`${path}/rotate?immediate=true`)).status).toBe(204);
    const done = await runCli(h, ['env', 'pull', 'after.env']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).not.toContain('rotating');
  });
});

describe('tether rotate --grace', () => {
  it('sets the deadline of the old secret; a value the API refuses changes nothing', async () => {
    const name = (world.databases[0] as Service).name;
    const bad = await runCli(h, ['rotate', 'database', name, '--grace', 'later', '--no-wait']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('grace_seconds');
    const before = (await world.as.get<{ started_at: string }>(`${path}/rotation`)).body;
    const res = await runCli(h, ['rotate', 'database', name, '--grace', '120', '--no-wait', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const { rotation } = JSON.parse(res.stdout) as {
      rotation: { state: string; started_at: string; retires_by: string };
    };
    expect(rotation.started_at).not.toBe(before.started_at);
    expect(rotation.state).toBe('delivering');
    expect(Date.parse(rotation.retires_by) - Date.parse(rotation.started_at)).toBe(120_000);
  });
});
