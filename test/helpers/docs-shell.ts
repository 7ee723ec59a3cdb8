/**
 * What test/integration/docs-shell-blocks.test.ts needs to run the docs' ```sh blocks as a person
 * would: the blocks of a Markdown file, `npm start` itself on a fresh data folder (its printed
 * address and operator token), a folder whose `npx tether` is this checkout's CLI (as `npx tether`
 * in the clone is, without the registry), one bash running a file's blocks in order, and the
 * person's browser for the sign-in stand-in's page.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { TEST_USERS } from '../../scripts/local/stand-ins/sign-in-stand-in';

/** The repository's root. */
export const REPO = resolve(import.meta.dirname, '../..');

/** One ```sh block: its position among the file's blocks and its text. */
export interface ShellBlock {
  file: string;
  index: number;
  code: string;
}

/** The ```sh blocks of `markdown`, in order. */
export function shellBlocks(file: string, markdown: string): ShellBlock[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m, index) => ({
    file,
    index,
    code: m[1] ?? '',
  }));
}

/** A running `npm start`: what it printed. */
export interface NpmStart {
  baseUrl: string;
  operatorToken: string;
  signInUrl: string;
  stop(): Promise<void>;
}

/** Resolves once `child` has exited (or at once if it has). */
const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((done) => child.once('exit', () => done()));

/**
 * Runs `npm start`'s script (scripts/start.ts) in its own process group with `env` on a fresh data
 * folder, and resolves once it printed "Press Ctrl-C to stop."; Ctrl-C (SIGINT) stops it.
 */
export async function startNpmStart(env: Record<string, string>): Promise<NpmStart> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tether-docs-data-'));
  // As root, PostgreSQL runs as another user and must enter the folder (as test/world-setup.ts does).
  await chmod(dataDir, 0o755);
  const child = spawn(join(REPO, 'node_modules/.bin/tsx'), ['scripts/start.ts'], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dataDir, DATA_DIR: dataDir, ...env },
    detached: true,
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) child.kill('SIGINT');
    const killer = setTimeout(() => {
      // Its own group only, if it did not stop in order.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, 30_000);
    await exited(child);
    clearTimeout(killer);
    await rm(dataDir, { recursive: true, force: true });
  };
  await new Promise<void>((ready, fail) => {
    const check = () => {
      if (out.includes('Press Ctrl-C to stop.')) ready();
    };
    child.stdout?.on('data', check);
    child.once('exit', () => fail(new Error(`npm start exited:\n${out}`)));
  }).catch(async (err: unknown) => {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  });
  const printed = (label: string) => {
    const value = new RegExp(`^\\s+${label}:\\s+(\\S+)`, 'm').exec(out)?.[1];
    if (!value) throw new Error(`npm start printed no ${label}:\n${out}`);
    return value;
  };
  return {
    baseUrl: printed('base URL'),
    operatorToken: printed('operator token'),
    signInUrl: printed('sign-in'),
    stop,
  };
}

/**
 * A fresh working folder whose `npx` runs only `npx tether`, as this checkout's CLI (what `npx
 * tether` does in the clone); any other package would come from the registry, so it fails.
 */
export async function cliFolder(): Promise<{ cwd: string; path: string; cleanup(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'tether-docs-cwd-'));
  const bin = join(root, 'bin');
  const cwd = join(root, 'work');
  await mkdir(bin);
  await mkdir(cwd);
  const npx = [
    '#!/bin/sh',
    `if [ "$1" = tether ]; then shift; exec "${process.execPath}" "${join(REPO, 'scripts/cli/tether.mjs')}" "$@"; fi`,
    'echo "npx $1: only npx tether runs in this test (no registry)" >&2',
    'exit 127',
  ].join('\n');
  await writeFile(join(bin, 'npx'), `${npx}\n`, { mode: 0o755 });
  return {
    cwd,
    path: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** The text every block is run with: stop at the first failing command; curl fails on an HTTP error. */
export const SHELL_PRELUDE = ['set -eo pipefail', 'curl() { command curl --fail-with-body "$@"; }'].join(
  '\n',
);

/** The marker printed before block `index` runs. */
export const blockMarker = (index: number): string => `::docs-block ${index}::`;

/** A bash running `script`, with its combined output so far. */
export interface ShellRun {
  child: ChildProcess;
  output(): string;
  /** Resolves with the output once it matches `pattern`. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** The exit code. */
  done: Promise<number | null>;
  /** Ends the shell and whatever it started (its own process group). */
  stop(): void;
}

/** Runs `script` in bash in `cwd` with `env`. */
export function runShell(script: string, cwd: string, env: Record<string, string>): ShellRun {
  const child = spawn('bash', ['-c', script], { cwd, env, detached: true });
  let out = '';
  const waiters: Array<() => void> = [];
  const take = (d: string) => {
    out += d;
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.setEncoding('utf8').on('data', take);
  child.stderr.setEncoding('utf8').on('data', take);
  const done = new Promise<number | null>((finish) => child.on('close', (code) => finish(code)));
  return {
    child,
    output: () => out,
    done,
    stop: () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    },
    waitFor: (pattern) =>
      new Promise((found, fail) => {
        const check = () => {
          const match = pattern.exec(out);
          if (!match) return;
          waiters.splice(waiters.indexOf(check), 1);
          found(match);
        };
        waiters.push(check);
        check();
        void done.then(() => fail(new Error(`the shell ended before ${pattern}:\n${out}`)));
      }),
  };
}

/**
 * The person at the browser: opens `startUrl` (a sign-in start), picks alice on the stand-in's
 * page, and follows the redirects back to the app, keeping the Worker's cookies as a browser does.
 * Resolves with what the app's page (its own redirect target) answered.
 */
export async function signInInBrowser(startUrl: string): Promise<string> {
  const cookies = new Map<string, string>();
  const workerOrigin = new URL(startUrl).origin;
  const visit = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (new URL(url).origin === workerOrigin && cookies.size > 0)
      headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    if (new URL(url).origin === workerOrigin) {
      for (const set of (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie()) {
        const [pair = ''] = set.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
    }
    return res;
  };
  const toProvider = await visit(startUrl);
  if (toProvider.status !== 302)
    throw new Error(`the start answered ${toProvider.status}: ${await toProvider.text()}`);
  const authorize = new URL(toProvider.headers.get('location') ?? '');
  const page = await visit(authorize.toString());
  if (page.status !== 200) throw new Error(`the stand-in's page answered ${page.status}`);
  const form = new URLSearchParams(authorize.searchParams);
  form.set('user', TEST_USERS[0]?.id ?? '');
  const picked = await visit(`${authorize.origin}${authorize.pathname}`, { method: 'POST', body: form });
  const callback = await visit(picked.headers.get('location') ?? '');
  if (callback.status !== 302)
    throw new Error(`the callback answered ${callback.status}: ${await callback.text()}`);
  const app = await visit(callback.headers.get('location') ?? '');
  return app.text();
}
