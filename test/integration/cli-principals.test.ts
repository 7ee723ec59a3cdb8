/**
 * `tether db credentials|rotate-password` and `tether principals ls|create|rotate|revoke`, as a
 * subprocess against the local stack, logging in with what they print.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { metadata, type Service, seedProject } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { canLogin } from '../helpers/pg-login';

let db: Service;
const h = cliHomeForFile();
let world: Awaited<ReturnType<typeof seedProject>>;

beforeAll(async () => {
  world = await seedProject(inject('baseUrl'), 1, { databases: 1 });
  db = world.databases[0] as Service;
  signInAs(h, world);
});

const json = <T>(stdout: string): T => JSON.parse(stdout) as T;
const physicalOf = (url: string) => new URL(url).pathname.slice(1);

describe('tether db credentials and rotate-password', () => {
  it('show the main user, and a rotation gives a password that logs in while the old one is refused', async () => {
    const shown = await runCli(h, ['db', 'credentials', db.name, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const before = json<{ user: string; password: string; url: string }>(shown.stdout);
    expect(before.user).toMatch(/^u_/);
    const rotated = await runCli(h, ['db', 'rotate-password', db.name, '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const after = json<{ user: string; password: string }>(rotated.stdout);
    expect(await canLogin(physicalOf(before.url), after.user, after.password)).toBe(true);
    expect(await canLogin(physicalOf(before.url), before.user, before.password)).toBe(false);
  });
});

describe('tether principals', () => {
  it('create shows the secret once, ls never shows it, rotate and revoke work by name', async () => {
    const created = await runCli(h, [
      'principals',
      'create',
      'database',
      db.name,
      'bi-tool',
      '--level',
      'read-only',
      '--allow',
      '127.0.0.1',
      '--allow',
      '10.0.0.0/8',
      '--expires',
      '30d',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const p = json<{
      username: string;
      password: string;
      url: string;
      allowed_sources: string[];
      expires_at: string;
    }>(created.stdout);
    expect(p.allowed_sources).toEqual(['127.0.0.1/32', '10.0.0.0/8']);
    expect(Date.parse(p.expires_at) - Date.now()).toBeGreaterThan(29 * 86400_000);
    // A principal with allowed sources logs in once the policy naming them was acknowledged.
    await eventually(
      async () =>
        (
          await world.as.get<{ principals: Array<{ name: string; state: string }> }>(
            `/api/v1/projects/${world.project.id}/databases/${db.id}/principals`,
          )
        ).body.principals.find((one) => one.name === 'bi-tool')?.state,
      (state) => state === 'active',
      60_000,
      'bi-tool active',
    );
    expect(await canLogin(physicalOf(p.url), p.username, p.password)).toBe(true);

    const ls = await runCli(h, ['principals', 'ls', 'database', db.name]);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toContain('bi-tool');
    expect(ls.stdout).toContain(p.username);
    expect(ls.stdout).not.toContain(p.password);

    const rotated = await runCli(h, ['principals', 'rotate', 'database', db.name, 'bi-tool', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = json<{ password: string }>(rotated.stdout);
    expect(await canLogin(physicalOf(p.url), p.username, next.password)).toBe(true);
    expect(await canLogin(physicalOf(p.url), p.username, p.password)).toBe(false);

    const revoked = await runCli(h, ['principals', 'revoke', 'database', db.name, 'bi-tool']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('Revoked bi-tool');
    expect(await canLogin(physicalOf(p.url), p.username, next.password)).toBe(false);
  });

  it('rotate --grace keeps the old login working beside a new one held to the same sources (docs/contract.md §14); a bad --grace changes nothing', {
    timeout: 150_000,
  }, async () => {
    const created = await runCli(h, [
      'principals',
      'create',
      'database',
      db.name,
      'etl',
      '--level',
      'read-only',
      '--allow',
      '127.0.0.1',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const p = json<{ username: string; password: string; url: string }>(created.stdout);
    const stateOf = async (name: string) =>
      (
        await world.as.get<{ principals: Array<{ name: string; state: string; username: string }> }>(
          `/api/v1/projects/${world.project.id}/databases/${db.id}/principals`,
        )
      ).body.principals.find((one) => one.name === name);
    await eventually(
      () => stateOf('etl'),
      (one) => one?.state === 'active',
      60_000,
      'etl active',
    );

    const bad = await runCli(h, ['principals', 'rotate', 'database', db.name, 'etl', '--grace', 'soon']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('grace_seconds');
    expect((await stateOf('etl'))?.username).toBe(p.username);

    const rotated = await runCli(h, [
      'principals',
      'rotate',
      'database',
      db.name,
      'etl',
      '--grace',
      '600',
      '--json',
    ]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = json<{ username: string; password: string }>(rotated.stdout);
    expect(next.username).not.toBe(p.username);
    // The new login waits for the policy naming it with the sources, as a new principal does.
    await eventually(
      () => stateOf('etl'),
      (one) => one?.state === 'active',
      60_000,
      'new login active',
    );
    expect(await canLogin(physicalOf(p.url), next.username, next.password)).toBe(true);
    expect(await canLogin(physicalOf(p.url), p.username, p.password)).toBe(true);
    // The policy that let the new login in still holds the old one to its sources.
    const [policy] = await metadata<{ set_names: string[] }>(
      `select set_names from deliveries where kind = 'network_policy' and target_id = $1 and status = 'delivered'
        order by delivered_at desc limit 1`,
      [db.id],
    );
    for (const user of [p.username, next.username])
      expect(policy?.set_names).toContain(`principal:${user}=["127.0.0.1/32"]`);
  });

  it('writes the secret nowhere but the terminal, unless --env-file (or --write-env, which Node 20 leaves alone) is given (mode 0600)', async () => {
    const before = await readdir(h.cwd);
    const shown = await runCli(h, [
      'principals',
      'create',
      'database',
      db.name,
      'quiet',
      '--level',
      'connect',
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(await readdir(h.cwd)).toEqual(before);
    const filed = await runCli(h, [
      'principals',
      'create',
      'database',
      db.name,
      'filed',
      '--level',
      'connect',
      '--write-env',
      '.env.ci',
    ]);
    expect(filed.code, filed.stderr).toBe(0);
    const text = await readFile(join(h.cwd, '.env.ci'), 'utf8');
    expect(text).toMatch(/^DATABASE_URL=/m);
    expect(filed.stdout).not.toMatch(/postgres:\/\//);
    expect((await stat(join(h.cwd, '.env.ci'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a bad expiry before asking the API', async () => {
    const res = await runCli(h, [
      'principals',
      'create',
      'database',
      db.name,
      'x',
      '--level',
      'connect',
      '--expires',
      'soon',
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--expires');
  });
});
