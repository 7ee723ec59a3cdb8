/**
 * `tether principals` on a bucket, run as the installed `tether` is (the file through its `#!`
 * line, as a global install or `npm link` runs it): create with `--env-file` writes the key
 * pair to that file only (mode 0600); Node 20 reads a `--env-file` anywhere in its arguments
 * unless the `#!` line ends its own options with `--`, which would stop a new file's creation
 * with "node: .env.ci: not found". Then ls (never a secret), rotate and revoke by name.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { type SeededProject, type Service, seedProject } from '../helpers/connections';

let world: SeededProject;
let bucket: Service;
const h = cliHomeForFile();

beforeAll(async () => {
  world = await seedProject(inject('baseUrl'), 1, { buckets: 1 });
  bucket = world.buckets[0] as Service;
  signInAs(h, world);
});

type Listed = { principals: Array<{ name: string; access_key_id: string; level: string }> };
const listed = async () =>
  (await world.as.get<Listed>(`/api/v1/projects/${world.project.id}/buckets/${bucket.id}/principals`)).body
    .principals;
const tether = (args: string[]) => runCli(h, args, { installed: true });

describe('tether principals on a bucket, run as installed', () => {
  it('create --env-file writes the key pair to a new file only; ls never shows the secret; rotate and revoke by name', async () => {
    const created = await tether([
      'principals',
      'create',
      'bucket',
      bucket.name,
      'ci',
      '--level',
      'read',
      '--env-file',
      '.env.ci',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const file = join(h.cwd, '.env.ci');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    const key = /^STORAGE_ACCESS_KEY=(.+)$/m.exec(text)?.[1]?.replace(/^'|'$/g, '');
    const secret = /^STORAGE_SECRET_KEY=(.+)$/m.exec(text)?.[1]?.replace(/^'|'$/g, '');
    expect(secret?.length).toBeGreaterThan(20);
    expect(created.stdout).toContain('.env.ci');
    expect(created.stdout).not.toContain(secret);
    const [p] = await listed();
    expect(p).toMatchObject({ name: 'ci', level: 'read', access_key_id: key });

    const ls = await tether(['principals', 'ls', 'bucket', bucket.name]);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toContain('ci');
    expect(ls.stdout).toContain(key);
    expect(ls.stdout).not.toContain(secret);

    const rotated = await tether(['principals', 'rotate', 'bucket', bucket.name, 'ci', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = JSON.parse(rotated.stdout) as { access_key_id: string; secret_access_key: string };
    expect(next.access_key_id).not.toBe(key);
    expect(next.secret_access_key).not.toBe(secret);
    expect((await listed()).map((x) => x.access_key_id)).toEqual([next.access_key_id]);

    const revoked = await tether(['principals', 'revoke', 'bucket', bucket.name, 'ci']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('Revoked ci');
    expect(await listed()).toEqual([]);
  });
});
