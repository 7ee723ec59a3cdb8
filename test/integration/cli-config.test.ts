/**
 * The `tether` tool's settings, driven as a subprocess: login (config file 0600 under
 * XDG_CONFIG_HOME or ~/.config), logout, environment overrides, link, help and usage errors.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api, createAccount, createProject, type TestAccount, type TestProject } from '../helpers/api';
import { type CliHome, cliHome, HAS_SCRIPT, runCli, runCliInTerminal } from '../helpers/cli';
import { createSite } from '../helpers/connections';

let owner: TestAccount;
let project: TestProject;
let site: { id: string; slug: string };
const homes: CliHome[] = [];

async function home(env: Record<string, string> = {}): Promise<CliHome> {
  const h = await cliHome(env);
  homes.push(h);
  return h;
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

beforeAll(async () => {
  owner = await createAccount();
  project = await createProject(owner.token);
  site = await createSite(api().as(owner.token), project.id, 'web');
});

afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => h.cleanup()));
});

describe('tether login', () => {
  it('stores token and API URL under XDG_CONFIG_HOME, readable only by the user', async () => {
    const h = await home();
    const res = await runCli(h, ['login', '--token', owner.token, '--api', inject('baseUrl')]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(owner.email);
    const file = join(h.configHome, 'tether', 'config.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      api_url: inject('baseUrl'),
      token: owner.token,
    });
    expect(await mode(file)).toBe(0o600);
    expect(await mode(join(h.configHome, 'tether'))).toBe(0o700);
  });

  it('uses ~/.config when XDG_CONFIG_HOME is unset', async () => {
    const h = await home();
    const res = await runCli(h, ['login', '--token', owner.token, '--api', inject('baseUrl')], {
      env: { XDG_CONFIG_HOME: '' },
    });
    expect(res.code).toBe(0);
    const file = join(h.configHome, '.config', 'tether', 'config.json');
    expect(await mode(file)).toBe(0o600);
  });

  it('reads the token from stdin with --token -', async () => {
    const h = await home();
    const res = await runCli(h, ['login', '--token', '-', '--api', inject('baseUrl')], {
      input: `${owner.token}\n`,
    });
    expect(res.code).toBe(0);
    const stored = JSON.parse(await readFile(join(h.configHome, 'tether', 'config.json'), 'utf8'));
    expect(stored.token).toBe(owner.token);
  });

  it('a token the API refuses is exit 2 with the API message, and nothing is stored', async () => {
    const h = await home();
    const direct = await api(inject('baseUrl'), 'tth_at_not-a-real-token').get<{
      error: { message: string };
    }>('/api/v1/account');
    expect(direct.status).toBe(401);
    const res = await runCli(h, ['login', '--token', 'tth_at_not-a-real-token', '--api', inject('baseUrl')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(direct.body.error.message);
    expect(res.stderr).toContain('401');
    await expect(stat(join(h.configHome, 'tether', 'config.json'))).rejects.toThrow(/ENOENT/);
  });

  it('an unreachable API is exit 3, and nothing is stored', async () => {
    const h = await home();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const res = await runCli(h, ['login', '--token', owner.token, '--api', closed]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('cannot reach the API');
    await expect(stat(join(h.configHome, 'tether', 'config.json'))).rejects.toThrow(/ENOENT/);
  });

  it('later commands use the stored login; logout revokes the token and forgets it', async () => {
    const h = await home();
    // A token of its own: logout revokes what it stored, and the file's other tests use the owner's.
    const made = await api()
      .as(owner.token)
      .post<{ token: string }>('/api/v1/account/tokens', { name: 'logout' });
    const token = made.body.token;
    expect((await runCli(h, ['login', '--token', token, '--api', inject('baseUrl')])).code).toBe(0);
    const linked = await runCli(h, ['link', project.slug]);
    expect(linked.code).toBe(0);
    const out = await runCli(h, ['logout']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Revoked the token on the server');
    expect((await api(inject('baseUrl'), token).get('/api/v1/account')).status).toBe(401);
    const after = await runCli(h, ['connections']);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('not logged in');
  });

  it('TETHER_TOKEN and TETHER_API_URL override the stored login', async () => {
    const h = await home();
    const closed = `http://127.0.0.1:${await freePort()}`;
    await mkdir(join(h.configHome, 'tether'), { recursive: true });
    await writeFile(
      join(h.configHome, 'tether', 'config.json'),
      JSON.stringify({ api_url: closed, token: 'tth_at_stale' }),
      { mode: 0o600 },
    );
    const stored = await runCli(h, ['link', project.slug]);
    expect(stored.code).toBe(3);
    const overridden = await runCli(h, ['link', project.slug], {
      env: { TETHER_API_URL: inject('baseUrl'), TETHER_TOKEN: owner.token },
    });
    expect(overridden.stderr).toBe('');
    expect(overridden.code).toBe(0);
  });
});

describe('tether link', () => {
  const asOwner = () => ({ TETHER_API_URL: inject('baseUrl'), TETHER_TOKEN: owner.token });

  it('writes .tether/project.json, which later commands find from a subfolder', async () => {
    const h = await home(asOwner());
    const res = await runCli(h, ['link', project.slug, '--site', 'web']);
    expect(res.code).toBe(0);
    const link = JSON.parse(await readFile(join(h.cwd, '.tether', 'project.json'), 'utf8'));
    expect(link).toEqual({ project_id: project.id, project_slug: project.slug, site_slug: 'web' });
    await mkdir(join(h.cwd, 'src', 'deep'), { recursive: true });
    const listing = await runCli({ ...h, cwd: join(h.cwd, 'src', 'deep') }, ['connections', '--json']);
    expect(listing.code).toBe(0);
    expect(JSON.parse(listing.stdout)).toEqual({ connections: [], available: [] });
  });

  it('an unknown project is exit 2 with the API message, and nothing is written', async () => {
    const h = await home(asOwner());
    const res = await runCli(h, ['link', 'no-such-project-here']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/project not found.*404/);
    await expect(stat(join(h.cwd, '.tether'))).rejects.toThrow(/ENOENT/);
  });

  it('an unknown site is exit 1 naming the known sites, and nothing is written', async () => {
    const h = await home(asOwner());
    const res = await runCli(h, ['link', project.slug, '--site', 'nope']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no site "nope"');
    expect(res.stderr).toContain(site.slug);
    await expect(stat(join(h.cwd, '.tether'))).rejects.toThrow(/ENOENT/);
  });

  it.each([
    ['an object naming no project', '{"x":1}'],
    ['invalid JSON', '{"project_id": '],
    ['null', 'null'],
    ['an array', '[]'],
    ['a string', '"my-shop"'],
  ])(
    'a link file holding %s: commands say to link again, and tether link overwrites it',
    async (_what, content) => {
      const h = await home(asOwner());
      const file = join(h.cwd, '.tether', 'project.json');
      await mkdir(join(h.cwd, '.tether'));
      await writeFile(file, content);
      const broken = await runCli(h, ['connections']);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/^error: \S*project\.json .*; run tether link <project> again\n$/);

      const relinked = await runCli(h, ['link', project.slug]);
      expect(relinked.stderr).toBe('');
      expect(relinked.code).toBe(0);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
        project_id: project.id,
        project_slug: project.slug,
      });
      expect((await runCli(h, ['connections', '--json'])).code).toBe(0);
    },
  );

  it('TETHER_PROJECT overrides the link', async () => {
    const other = await createProject(owner.token);
    const h = await home(asOwner());
    expect((await runCli(h, ['link', project.slug])).code).toBe(0);
    const res = await runCli(h, ['connections', '--json'], {
      env: { TETHER_PROJECT: 'no-such-project-here' },
    });
    expect(res.code).toBe(2);
    const ok = await runCli(h, ['connections', '--json'], { env: { TETHER_PROJECT: other.slug } });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ connections: [] });
  });
});

describe('help and usage errors', () => {
  it.each([
    [[]],
    [['login']],
    [['logout']],
    [['link']],
    [['connections']],
    [['connect']],
    [['disconnect']],
    [['env']],
    [['env', 'pull']],
    [['db']],
    [['db', 'sites']],
  ])('tether %j --help shows examples and exits 0', async (words) => {
    const h = await home();
    const res = await runCli(h, [...words, '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage: tether');
    expect(res.stdout).toContain('Examples:');
  });

  it.each([
    ['an unknown command', ['frobnicate'], /unknown command/],
    ['a missing argument', ['disconnect', 'database'], /missing required argument/],
    ['an unknown kind', ['connect', 'queue', 'q1', '--yes'], /unknown kind "queue"/],
    ['connect without a kind', ['connect'], /needs a kind and a name/],
    [
      'a level the kind does not have',
      ['connect', 'bucket', 'b', '--level', 'admin'],
      /use read or read-write/,
    ],
    ['no login', ['connections'], /not logged in/],
  ])('%s is exit 1', async (_name, args, message) => {
    const h = await home({ TETHER_API_URL: inject('baseUrl'), TETHER_PROJECT: project.slug });
    const res = await runCli(h, args);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
  });

  it('no project is exit 1 saying how to link one', async () => {
    const h = await home({ TETHER_API_URL: inject('baseUrl'), TETHER_TOKEN: owner.token });
    const res = await runCli(h, ['connections']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('tether link <project>');
  });
});

describe('colour', () => {
  /** A usage error found before any request: `error:` on stderr. */
  const failing = ['connect', 'queue', 'q1'];
  /** The variables picocolors reads, none set: colour follows the terminal alone. */
  const plainEnv = { NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined };
  const ESCAPE = '\x1b[';

  it.skipIf(!HAS_SCRIPT)(
    'stderr redirected to a file gets no colour codes, though stdout is a terminal',
    async () => {
      const h = await home();
      const stderrFile = join(h.cwd, 'stderr.txt');
      const res = await runCliInTerminal(h, failing, '', { env: plainEnv, stderrFile });
      expect(res.code).toBe(1);
      const stderr = await readFile(stderrFile, 'utf8');
      expect(stderr).toContain('error: unknown kind "queue"');
      expect(stderr).not.toContain(ESCAPE);
    },
  );

  it.skipIf(!HAS_SCRIPT)('an error on a terminal is red, unless NO_COLOR is set', async () => {
    const h = await home();
    const coloured = await runCliInTerminal(h, failing, '', { env: plainEnv });
    expect(coloured.code).toBe(1);
    expect(coloured.stdout).toContain(`${ESCAPE}31merror:`);
    const plain = await runCliInTerminal(h, failing, '', { env: { ...plainEnv, NO_COLOR: '1' } });
    expect(plain.stdout).toContain('error: unknown kind');
    expect(plain.stdout).not.toContain(ESCAPE);
  });

  it('stderr in a pipe is plain, even with CI set; FORCE_COLOR colours it', async () => {
    const h = await home();
    const piped = await runCli(h, failing, { env: { ...plainEnv, CI: 'true' } });
    expect(piped.code).toBe(1);
    expect(piped.stderr).toContain('error: unknown kind');
    expect(piped.stderr).not.toContain(ESCAPE);
    const forced = await runCli(h, failing, { env: { ...plainEnv, FORCE_COLOR: '1' } });
    expect(forced.stderr).toContain(`${ESCAPE}31merror:`);
  });
});
