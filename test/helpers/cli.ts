/**
 * Runs the `tether` command-line tool as a subprocess, the way a user does: its own config
 * folder (XDG_CONFIG_HOME), its own working folder, no terminal, and only the TETHER_*
 * variables a test gives it.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { forFile } from './for-file';

/** The entry file exactly as package.json's `bin` names it. */
export const CLI_ENTRY = resolve(fileURLToPath(new URL('../../scripts/cli/tether.mjs', import.meta.url)));

/** How one run ended. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Where and with what a run happens. */
export interface CliHome {
  /** The working folder (a fresh temporary one). */
  cwd: string;
  /** XDG_CONFIG_HOME of the runs. */
  configHome: string;
  /** Variables of every run (TETHER_* and the like), on top of PATH. */
  env: Record<string, string>;
  /** Removes both folders. */
  cleanup(): Promise<void>;
}

/** A fresh working folder and config folder, with `env` for every run. */
export async function cliHome(env: Record<string, string> = {}): Promise<CliHome> {
  const cwd = await mkdtemp(join(tmpdir(), 'tether-cli-cwd-'));
  const configHome = await mkdtemp(join(tmpdir(), 'tether-cli-config-'));
  return {
    cwd,
    configHome,
    env,
    async cleanup() {
      await rm(cwd, { recursive: true, force: true });
      await rm(configHome, { recursive: true, force: true });
    },
  };
}

/** A CLI home signed in as a seeded owner, on that owner's project, against the Worker at `apiUrl`. */
export function cliHomeOf(
  owner: { token: string; project: { slug: string } },
  apiUrl: string,
): Promise<CliHome> {
  return cliHome(ownerEnv(owner, apiUrl));
}

/** The variables that point the CLI at `owner`'s project through `apiUrl`. */
function ownerEnv(
  owner: { token: string; project: { slug: string } },
  apiUrl: string,
): Record<string, string> {
  return { TETHER_API_URL: apiUrl, TETHER_TOKEN: owner.token, TETHER_PROJECT: owner.project.slug };
}

/** The file's CLI home, made before its first test and removed after its last; {@link signInAs} points it at a project. */
export function cliHomeForFile(): CliHome {
  return forFile(
    () => cliHome(),
    (home) => home.cleanup(),
  );
}

/** Points the runs of `home` at `owner`'s project through `apiUrl` (the shared Worker by default), as {@link cliHomeOf} does. */
export function signInAs(
  home: CliHome,
  owner: { token: string; project: { slug: string } },
  apiUrl: string = inject('baseUrl'),
): void {
  Object.assign(home.env, ownerEnv(owner, apiUrl));
}

/** Extra variables of one run; `undefined` removes a default (NO_COLOR, to test colour). */
export type ExtraEnv = Record<string, string | undefined>;

function childEnv(home: CliHome, extra: ExtraEnv): Record<string, string> {
  const merged: ExtraEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home.configHome,
    XDG_CONFIG_HOME: home.configHome,
    NO_COLOR: '1',
    ...home.env,
    ...extra,
  };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/**
 * Starts the tool with `args`; stdin is a pipe (not a terminal). `installed`: run the file itself,
 * through its `#!` line, as `tether` on the PATH does, instead of `node <file>`.
 */
export function spawnCli(
  home: CliHome,
  args: string[],
  extraEnv: ExtraEnv = {},
  installed = false,
): ChildProcessWithoutNullStreams {
  const env = childEnv(home, extraEnv);
  if (!installed) return spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: home.cwd, env });
  // The `#!/usr/bin/env` line finds this very Node first on the PATH.
  return spawn(CLI_ENTRY, args, {
    cwd: home.cwd,
    env: { ...env, PATH: `${dirname(process.execPath)}:${env.PATH}` },
  });
}

/** Runs the tool to its end (at most `timeoutMs`), feeding `input` on stdin. */
export function runCli(
  home: CliHome,
  args: string[],
  opts: { env?: ExtraEnv; input?: string; timeoutMs?: number; installed?: boolean } = {},
): Promise<CliResult> {
  const child = spawnCli(home, args, opts.env, opts.installed);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  child.stdin.end(opts.input ?? '');
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`tether ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 20_000} ms\n${stderr}`),
      );
    }, opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Resolves with what the child prints on `stream` from now on, once it matches `pattern`
 * (bounded wait).
 */
export function waitForOutput(
  child: ChildProcessWithoutNullStreams,
  pattern: RegExp,
  timeoutMs = 20_000,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let other = '';
    const onOut = (d: Buffer) => {
      out += d.toString('utf8');
      if (pattern.test(out)) done(() => resolvePromise(out));
    };
    const onOther = (d: Buffer) => {
      other += d.toString('utf8');
    };
    const watched = stream === 'stdout' ? child.stdout : child.stderr;
    const unwatched = stream === 'stdout' ? child.stderr : child.stdout;
    const onExit = (code: number | null) =>
      done(() => reject(new Error(`tether exited (${code}) before printing ${pattern}\n${out}\n${other}`)));
    const timer = setTimeout(
      () => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms\n${out}\n${other}`))),
      timeoutMs,
    );
    function done(settle: () => void) {
      clearTimeout(timer);
      watched.off('data', onOut);
      unwatched.off('data', onOther);
      child.off('exit', onExit);
      settle();
    }
    watched.on('data', onOut);
    unwatched.on('data', onOther);
    child.on('exit', onExit);
  });
}

/** Resolves with the exit code once the child has exited (bounded wait). */
export function exitOf(child: ChildProcessWithoutNullStreams, timeoutMs = 10_000): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`tether did not exit within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
  });
}

/** Whether util-linux `script` is here to give the tool a terminal. */
export const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

const shellQuote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

/** How a run on a terminal goes beyond its arguments. */
export interface TerminalOptions {
  /**
   * Type the input only once the output matches this (the question): a key such as Ctrl-C
   * reaches the tool as a keystroke only after it has put the terminal in raw mode to ask;
   * typed earlier, the terminal itself would turn it into a signal.
   */
  typeAfter?: RegExp;
  /** Extra variables of the run (`undefined` removes one). */
  env?: ExtraEnv;
  /** Redirect the tool's stderr to this file, leaving stdout on the terminal. */
  stderrFile?: string;
}

/**
 * Runs the tool on a pseudo-terminal (util-linux `script`), typing `input`: how a person at a
 * terminal answers its questions. Output comes back as the terminal showed it.
 */
export function runCliInTerminal(
  home: CliHome,
  args: string[],
  input: string,
  opts: TerminalOptions = {},
): Promise<CliResult> {
  let command = [process.execPath, CLI_ENTRY, ...args].map(shellQuote).join(' ');
  if (opts.stderrFile !== undefined) command += ` 2>${shellQuote(opts.stderrFile)}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: home.cwd,
    env: childEnv(home, opts.env ?? {}),
  });
  let stdout = '';
  let typed = false;
  const type = () => {
    typed = true;
    child.stdin.end(input);
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (!typed && opts.typeAfter?.test(stdout)) type();
  });
  if (!opts.typeAfter) type();
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tether ${args.join(' ')} on a terminal did not finish\n${stdout}`));
    }, 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr: '' });
    });
  });
}
