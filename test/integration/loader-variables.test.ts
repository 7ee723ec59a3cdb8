/**
 * Loader variables (docs/contract.md §9, Variables handed to a shell). Regression (issue 38): a
 * write member set `NODE_OPTIONS=--import=data:…` on a site, and the owner's `tether run -- node
 * -e 1` ran the payload. The API refuses to store a loader variable (400 naming the field); one
 * stored before that is left out by `tether run` and `tether env pull`, which say so, unless
 * `--allow-loader-vars`.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { Keyring } from '../../functions/lib/crypto';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { metadata, type SeededProject, seedProject } from '../helpers/connections';

const h = cliHomeForFile();
let p: SeededProject;
const env = () => `/api/v1/projects/${p.project.id}/sites/${p.site.id}/env`;
type Refusal = { error: { code: string; field?: string; message: string } };

beforeAll(async () => {
  p = await seedProject(inject('baseUrl'), 1);
  expect((await p.as.put(env(), { vars: { GREETING: 'hello' } })).status).toBe(200);
  signInAs(h, p);
});

describe('a loader variable set by a write member', () => {
  it.each([
    ['NODE_OPTIONS', '--import=data:text/javascript,process.exit(3)'],
    ['LD_PRELOAD', '/tmp/evil.so'],
    ['LD_LIBRARY_PATH', '/tmp'],
    ['DYLD_INSERT_LIBRARIES', '/tmp/evil.dylib'],
    ['BASH_ENV', '/tmp/evil.sh'],
    ['ENV', '/tmp/evil.sh'],
    ['PYTHONSTARTUP', '/tmp/evil.py'],
    ['PERL5OPT', '-Mevil'],
    ['RUBYOPT', '-revil'],
    ['PATH', '/tmp/evil-bin'],
  ])(
    '%s is refused by the API: 400 VALIDATION_FAILED naming the field, nothing stored',
    async (name, value) => {
      const res = await p.as.put<Refusal>(env(), { vars: { GREETING: 'changed', [name]: value } });
      expect([res.status, res.body.error.code, res.body.error.field]).toEqual([
        400,
        'VALIDATION_FAILED',
        `vars.${name}`,
      ]);
      expect(res.body.error.message).toMatch(/loader variable/);
      expect((await p.as.get<{ vars: Record<string, string> }>(env())).body.vars).toEqual({
        GREETING: 'hello',
      });
    },
  );

  it('stored before the API refused it, is not handed to `tether run` or `tether env pull` unless --allow-loader-vars', async () => {
    // As stored before: planted in the site's encrypted document, as the API once wrote it.
    const payload = join(h.cwd, 'payload.cjs');
    const ran = join(h.cwd, 'ran');
    await writeFile(payload, `require('node:fs').writeFileSync(${JSON.stringify(ran)}, 'x');\n`);
    const keyring = new Keyring(inject('workerEnv').ENCRYPTION_KEYS as string);
    const planted = { GREETING: 'hello', NODE_OPTIONS: `--require ${payload}` };
    await metadata('update sites set vars_ciphertext = $1 where id = $2', [
      await keyring.encrypt(JSON.stringify(planted)),
      p.site.id,
    ]);

    const run = await runCli(h, ['run', '--', 'node', '-e', 'console.log(process.env.GREETING)']);
    expect([run.code, run.stdout.trim()]).toEqual([0, 'hello']);
    expect(run.stderr).toMatch(/Skipped NODE_OPTIONS/);
    expect(existsSync(ran)).toBe(false);

    const pulled = await runCli(h, ['env', 'pull', '-']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(parse(pulled.stdout)).toEqual({ GREETING: 'hello' });
    expect(pulled.stderr).toMatch(/Skipped NODE_OPTIONS/);

    // Asked for, it is handed over: the payload runs (so the refusal above is what kept it out).
    const allowed = await runCli(h, ['run', '--allow-loader-vars', '--', 'node', '-e', '0']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(existsSync(ran)).toBe(true);
    const all = await runCli(h, ['env', 'pull', '--allow-loader-vars', '-']);
    expect(parse(all.stdout)).toEqual(planted);
  });
});
