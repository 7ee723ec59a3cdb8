/**
 * Embedded PostgreSQL for the local stack: one persistent cluster per data folder,
 * listening on 127.0.0.1 only.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { chown, mkdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, isPortFree } from './net';
import { choosePgRunner, type PgBinaries, type PgRunner, pgBinaries, spawnPg } from './pg-process';

/** Options for {@link startPostgres}. */
export interface PostgresOptions {
  /** Folder the stack keeps its state in; the cluster lives in `${dataDir}/pg`. */
  dataDir: string;
  /** Port to listen on; by default the port of the previous run if free, else any free port. */
  port?: number;
  /** Receives the server's log lines; by default they go to `${dataDir}/postgres.log`. */
  onLog?: (line: string) => void;
  /**
   * Flush every write to disk (fsync) so the cluster survives a crash of the machine. Default
   * true; the test stacks, whose folders are thrown away after the run, pass false.
   */
  durable?: boolean;
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
 * Host rules use `scram-sha-256`: a cluster initialised by an earlier version with `password`
 * (clear text on the wire) is rewritten before it starts.
 */
async function requireScram(pgDir: string): Promise<void> {
  const file = join(pgDir, 'pg_hba.conf');
  const rules = await readFile(file, 'utf8');
  const scram = rules
    .split('\n')
    .map((line) =>
      line.trimStart().startsWith('#') ? line : line.replace(/\b(password|md5)\s*$/, 'scram-sha-256'),
    )
    .join('\n');
  if (scram !== rules) await writeFile(file, scram);
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

/** Runs `program` to completion, rejecting with its output when it fails. */
function runToEnd(
  runner: PgRunner,
  program: string,
  args: string[],
  log: (line: string) => void,
): Promise<void> {
  return new Promise((done, failed) => {
    const child = spawnPg(runner, program, args);
    let output = '';
    const take = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output += text;
      log(text);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.on('error', failed);
    child.on('close', (code, signal) => {
      if (code === 0) done();
      else
        failed(
          new Error(`${program} ended with ${code ?? signal}: ${output.trim().split('\n').at(-1) ?? ''}`),
        );
    });
  });
}

/** Starts the server and resolves once it accepts connections; rejects if it ends first. */
function startServer(
  runner: PgRunner,
  bins: PgBinaries,
  args: string[],
  log: (line: string) => void,
): Promise<ChildProcess> {
  return new Promise((ready, failed) => {
    const child = spawnPg(runner, bins.postgres, args);
    let up = false;
    const take = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      log(text);
      if (!up && text.includes('database system is ready to accept connections')) {
        up = true;
        ready(child);
      }
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.on('error', failed);
    child.on('close', (code, signal) => {
      if (!up) failed(new Error(`postgres ended with ${code ?? signal} before accepting connections`));
    });
  });
}

/** Stops the server with a fast shutdown (SIGINT) and waits for it to end. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('close', () => done());
    child.kill('SIGINT');
  });
}

/**
 * A cluster folder made by another way of running (say, as the `postgres` user before user
 * namespaces were used) is handed to the owner PostgreSQL now checks for.
 */
async function ensureClusterOwner(pgDir: string, runner: PgRunner): Promise<void> {
  const info = await stat(pgDir);
  if (info.uid === runner.owner.uid || userInfo().uid !== 0) return;
  const run = spawnSync('chown', ['-R', `${runner.owner.uid}:${runner.owner.gid}`, pgDir], {
    stdio: 'ignore',
  });
  if (run.status !== 0)
    throw new Error(
      `cannot hand ${pgDir} to uid ${runner.owner.uid}: run chown -R ${runner.owner.uid} ${pgDir}`,
    );
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL cluster in `${dataDir}/pg`.
 * The cluster listens on 127.0.0.1 only, has no Unix socket, and asks every role for a
 * SCRAM-SHA-256 password (never `password`, which sends it in clear text). Keeping the port
 * of the previous run (when free) keeps stored connection strings valid across restarts.
 * Runs as any user (see pg-process.ts).
 */
export async function startPostgres(opts: PostgresOptions): Promise<PostgresHandle> {
  const dataDir = resolve(opts.dataDir);
  const durable = opts.durable ?? true;
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

  const bins = await pgBinaries();
  const runner = choosePgRunner(bins, dataDir);
  log(`[tether] running PostgreSQL ${runner.description}`);
  const password = await loadPassword(dataDir);
  const initialised = await exists(join(pgDir, 'PG_VERSION'));
  if (!initialised && (await exists(pgDir))) {
    // A half-made cluster from an interrupted initdb: initdb refuses a non-empty folder.
    await rm(pgDir, { recursive: true, force: true });
  }
  if (initialised) {
    await clearStaleServer(pgDir, log);
    await ensureClusterOwner(pgDir, runner);
  }
  const port = await choosePort(dataDir, opts.port);

  const where = `(log: ${join(dataDir, 'postgres.log')})`;
  if (!initialised) {
    await mkdir(pgDir, { mode: 0o700 });
    if (runner.uid !== undefined) await chown(pgDir, runner.owner.uid, runner.owner.gid);
    const pwFile = join(dataDir, `.pg-password-${randomBytes(6).toString('hex')}`);
    await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    if (runner.uid !== undefined) await chown(pwFile, runner.owner.uid, runner.owner.gid);
    try {
      await runToEnd(
        runner,
        bins.initdb,
        [
          `--pgdata=${pgDir}`,
          '--auth=scram-sha-256',
          '--username=postgres',
          `--pwfile=${pwFile}`,
          '--encoding=UTF8',
          '--no-locale',
          ...(durable ? [] : ['--no-sync']),
        ],
        log,
      );
    } catch (err) {
      await rm(pgDir, { recursive: true, force: true });
      throw new Error(`initdb failed: ${err instanceof Error ? err.message : String(err)} ${where}`);
    } finally {
      await rm(pwFile, { force: true });
    }
  }
  await requireScram(pgDir);
  // max_connections: every Worker request opens its own connections (metadata pool plus the
  // admin one for credentials); a hosted cluster puts a pooler in front, the local one has room.
  const server = await startServer(
    runner,
    bins,
    [
      '-D',
      pgDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=400',
      // Kept for the admin role (pg_use_reserved_connections): provisioning works on a full cluster.
      '-c',
      'reserved_connections=10',
      // A cluster thrown away after the run need not wait for the disk (CREATE DATABASE flushes a
      // copy of its template otherwise); what a query sees is the same either way.
      ...(durable ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
    ],
    log,
  ).catch((err: unknown) => {
    throw new Error(
      `postgres on port ${port} failed: ${err instanceof Error ? err.message : String(err)}\n${tail.join('')}`,
    );
  });

  // If this process exits without stop(), the server must not outlive it.
  const killOnExit = () => server.kill('SIGINT');
  process.on('exit', killOnExit);

  let stopped: Promise<void> | undefined;
  return {
    port,
    password,
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop() {
      process.removeListener('exit', killOnExit);
      stopped ??= stopServer(server).finally(() => logFile?.end());
      return stopped;
    },
  };
}
