/**
 * The docs run as written: every ```sh block of README.md and docs/auth-service.md runs, in order,
 * in one bash per file, against a fresh `npm start` (scripts/start.ts on an empty data folder),
 * and the first failing command fails the test, naming its block. Substituted, as a person would:
 *
 * - `http://127.0.0.1:8787` is the address `npm start` printed, `$OPERATOR_TOKEN` the token it printed;
 * - `npx tether` is this checkout's CLI (npx-in-the-clone, in a fresh folder; no registry);
 * - curl fails on an HTTP error status (`--fail-with-body`), so a refused request is an error;
 * - the person at the browser (docs/auth-service.md) is test/helpers/docs-shell.ts signInInBrowser,
 *   picking alice on the stand-in's page; Apple's key file is a fresh P-256 key;
 * - "after `npx tether login`, a project `shop` linked in this folder" is TETHER_API_URL and
 *   TETHER_TOKEN of an account the operator token made, then `npx tether projects create Shop &&
 *   npx tether link shop` (the steps `npm start` prints).
 *
 * NOT_RUN lists the blocks that cannot run here and why; each must still match a block.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import {
  blockMarker,
  cliFolder,
  type NpmStart,
  REPO,
  runShell,
  SHELL_PRELUDE,
  type ShellBlock,
  shellBlocks,
  signInInBrowser,
  startNpmStart,
} from '../helpers/docs-shell';

/** Blocks not run, by the start of their first line, with the reason. */
const NOT_RUN: Record<string, string> = {
  'npm ci && npm start':
    "this test's stack is this npm start; npm ci would reinstall the checkout and npm test run the whole suite inside it",
  'npm run --silent secrets':
    'deploys to Cloudflare: an account, wrangler and the network (docs/deploy.md; what is proven only against stand-ins)',
  'npm install /path/to/tether/packages/auth-client':
    'installs into an Expo app, with Expo packages from the npm registry',
};

/** The address the docs write for what `npm start` printed. */
const DOCS_ADDRESS = 'http://127.0.0.1:8787';

let stack: NpmStart;
const home = { dir: '' };

beforeAll(async () => {
  home.dir = await mkdtemp(join(tmpdir(), 'tether-docs-home-'));
  // Google's published keys on a loopback port nothing serves: no request leaves the machine.
  stack = await startNpmStart({
    PORT: String(await freePort()),
    GOOGLE_PUBLISHED_JWKS_URL: `http://127.0.0.1:${await freePort()}/certs`,
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  if (home.dir) await rm(home.dir, { recursive: true, force: true });
});

async function blocksOf(file: string): Promise<ShellBlock[]> {
  return shellBlocks(file, await readFile(join(REPO, file), 'utf8'));
}

const skipReason = (block: ShellBlock): string | undefined =>
  Object.entries(NOT_RUN).find(([start]) => block.code.trimStart().startsWith(start))?.[1];

/** An account made with the printed operator token, as the README's curl does. */
async function accountToken(email: string): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/api/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

/**
 * Runs the runnable blocks of `file` after `before` (what the docs say was done first) in a fresh
 * folder; `during` plays the person while it runs. Resolves with the output, or fails naming the block.
 */
async function runDocs(
  file: string,
  opts: { env?: Record<string, string>; before?: string; setUp?: (cwd: string) => Promise<void> } = {},
  during?: (run: ReturnType<typeof runShell>) => Promise<void>,
): Promise<string> {
  const blocks = (await blocksOf(file)).filter((block) => !skipReason(block));
  const folder = await cliFolder();
  try {
    await opts.setUp?.(folder.cwd);
    const script = [
      SHELL_PRELUDE,
      opts.before ?? '',
      ...blocks.map(
        (block) =>
          `echo '${blockMarker(block.index)}'\n${block.code.replaceAll(DOCS_ADDRESS, stack.baseUrl)}`,
      ),
      "echo '::docs-done::'",
    ].join('\n');
    const run = runShell(script, folder.cwd, {
      PATH: folder.path,
      HOME: home.dir,
      XDG_CONFIG_HOME: join(home.dir, '.config'),
      NO_COLOR: '1',
      OPERATOR_TOKEN: stack.operatorToken,
      ...opts.env,
    });
    // A person who cannot go on (the browser's part failed) ends the shell waiting for them.
    const playing = during?.(run).then(
      () => undefined,
      (err: unknown) => {
        run.stop();
        return err;
      },
    );
    const code = await run.done;
    const problem = await playing;
    if (problem) throw problem;
    const out = run.output();
    const markers = [...out.matchAll(/::docs-block (\d+)::/g)];
    const last = Number(markers.at(-1)?.[1] ?? -1);
    const failed = blocks.find((block) => block.index === last);
    expect(
      code === 0 && out.includes('::docs-done::'),
      `${file}, sh block ${last + 1} failed (exit ${code}):\n${failed?.code ?? ''}\n--- output ---\n${out}`,
    ).toBe(true);
    return out;
  } finally {
    await folder.cleanup();
  }
}

describe('the docs run as written against a fresh npm start', () => {
  it('every block the test does not run is named with its reason, and still exists', async () => {
    const all = [...(await blocksOf('README.md')), ...(await blocksOf('docs/auth-service.md'))];
    for (const start of Object.keys(NOT_RUN)) {
      expect(
        all.filter((block) => block.code.trimStart().startsWith(start)),
        start,
      ).toHaveLength(1);
    }
    expect(all.length - Object.keys(NOT_RUN).length).toBeGreaterThanOrEqual(4);
  });

  it("README.md: the operator's curl, then the connection's own role through psql", async () => {
    const out = await runDocs('README.md');
    // `select session_user` answered with the connection's own c_ role.
    expect(out).toMatch(/^\s*c_[a-z0-9_]+\s*$/m);
  }, 240_000);

  it('docs/auth-service.md: the mobile sign-in on your machine, then Sign in with Apple', async () => {
    const token = await accountToken('docs-auth@example.com');
    let appPage = '';
    const out = await runDocs(
      'docs/auth-service.md',
      {
        env: { TETHER_API_URL: stack.baseUrl, TETHER_TOKEN: token },
        before: 'npx tether projects create Shop && npx tether link shop',
        setUp: async (cwd) => {
          const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
          const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
          await writeFile(join(cwd, 'AuthKey_KEY1234567.p8'), pem, { mode: 0o600 });
        },
      },
      async (run) => {
        const [, startUrl = ''] = await run.waitFor(/open in a browser: (\S+)/);
        await run.waitFor(/waiting for the browser on http:\/\/127\.0\.0\.1:8976/);
        appPage = await signInInBrowser(startUrl);
      },
    );
    expect(appPage).toContain('Back in the app');
    // The exchange's answer: a session of alice.
    expect(out).toMatch(/"access_token":"[^"]+"/);
    expect(out).toContain('"email":"alice@example.com"');
  }, 240_000);
});
